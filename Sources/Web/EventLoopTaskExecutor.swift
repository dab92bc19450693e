import NIOCore

/// A channel's event loop as a task's preferred executor: the connection's task then runs where its
/// bytes are read and written, instead of handing every request part and answer between the event
/// loop's thread and the cooperative pool's. What runs there must not block for long: a picture's
/// file is read on NIO's thread pool, a tab's WebSocket goes back to the cooperative pool.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
