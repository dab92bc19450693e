import NIOCore

/// Splits the byte stream into `\n`-terminated lines (a trailing `\r` is dropped). A line longer than
/// `maximumLength` is never buffered whole: the decoder fails with `LineTooLong` as soon as that many
/// bytes arrived without a newline, so a hostile client cannot grow the daemon's memory.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    public let maximumLength: Int
    private var scanned = 0

    public init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        let start = view.startIndex
        if let newline = view[(start + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - start
            guard length <= maximumLength else { throw LineTooLong(limit: maximumLength) }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") {
                line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)!
            }
            scanned = 0
            context.fireChannelRead(wrapInboundOut(line))
            return .continue
        }
        scanned = view.count
        if scanned > maximumLength { throw LineTooLong(limit: maximumLength) }
        return .needMoreData
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A final line without its newline is still a line (`printf '{...}' | socat ...`).
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            scanned = 0
            context.fireChannelRead(wrapInboundOut(line))
        }
        return .needMoreData
    }
}

public struct LineTooLong: Error, CustomStringConvertible {
    public let limit: Int
    public var description: String { "line longer than \(limit) bytes" }
}
