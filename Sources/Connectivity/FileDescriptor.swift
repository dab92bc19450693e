#if canImport(Glibc)
import Glibc
#endif

/// An errno with the call that set it.
struct SystemError: Error, CustomStringConvertible, Sendable {
    let call: String
    let errno: Int32

    init(_ call: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.errno = errno
    }

    var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// Linux calls that Swift's Glibc module does not import (their headers are not in its module map):
/// `timerfd_create`, `timerfd_settime`, `setns`. Resolved from libc with dlsym, called through C function pointers,
/// so the calling convention is C's. This module may add no C target of its own.
enum LinuxCalls {
    typealias TimerfdCreate = @convention(c) (Int32, Int32) -> Int32
    typealias TimerfdSettime = @convention(c) (Int32, Int32, UnsafePointer<itimerspec>?, UnsafeMutablePointer<itimerspec>?) -> Int32
    typealias Setns = @convention(c) (Int32, Int32) -> Int32

    static let timerfdCreate: TimerfdCreate? = resolve("timerfd_create")
    static let timerfdSettime: TimerfdSettime? = resolve("timerfd_settime")
    static let setns: Setns? = resolve("setns")

    // <sys/timerfd.h>, <sched.h>
    static let TFD_CLOEXEC = Int32(O_CLOEXEC)
    static let TFD_NONBLOCK = Int32(O_NONBLOCK)
    static let TFD_TIMER_ABSTIME: Int32 = 1 << 0
    static let TFD_TIMER_CANCEL_ON_SET: Int32 = 1 << 1
    static let CLONE_NEWNET: Int32 = 0x4000_0000

    private static func resolve<F>(_ name: String) -> F? {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
        return unsafeBitCast(symbol, to: F.self)
    }
}
