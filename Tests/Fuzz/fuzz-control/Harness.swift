// libFuzzer harness: the control socket's protocol — bytes as a client sends them, split into reads
// where the input says, through a connection's session (framing, limits, rate) and the parser.
import Control
import FuzzSupport

@main enum Harness { static func main() { runFuzzer(fuzz) } }

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var session = ControlSession(openedAt: 0)
    // The first byte chooses the read size, so a request arrives whole or in pieces.
    let chunk = max(1, Int(bytes.first ?? 1) % 64 + 1)
    var t = 0.0
    var offset = 0
    var answered = 0
    while offset < bytes.count && !session.closed {
        let piece = Array(bytes[offset..<min(bytes.count, offset + chunk)])
        offset += piece.count
        t += 0.01
        for action in session.received(piece, at: t) {
            switch action {
            case .request(let command):
                answered += 1
                // What a client writes for a request reads back as the same request.
                let line = command.line
                fuzzCheck(ControlCommand.parse(line) == .success(command), "round trip of \(line)")
                fuzzCheck(line.utf8.count < 4 * session.limits.lineBytes, "a request line stays short")
            case .reply(let reply):
                answered += 1
                let line = reply.line
                fuzzCheck(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" }, "an answer is one line")
                fuzzCheck(ControlReply.parse(String(line.dropLast())) == reply, "an answer reads back")
            case .closeConnection: break
            }
        }
    }
    fuzzCheck(answered <= bytes.count, "no more answers than bytes")
    if let text = String(validating: bytes, as: UTF8.self) { _ = ControlCommand.parse(text) }
    return 0
}
