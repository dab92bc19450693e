// What Swift's runtime on Linux costs an idle process, the anchor of scenario 5: one task run on the
// global executor (as every splashd service is), which starts libdispatch's worker pool and with it the
// pool's monitor, a timer on libdispatch's manager thread every second for the rest of the process's
// life (swift-corelibs-libdispatch, src/event/workqueue.c) — then nothing but waiting.
import Glibc

Task.detached {
    print("ready")
    fflush(stdout)
}
while true {
    pause()
}
