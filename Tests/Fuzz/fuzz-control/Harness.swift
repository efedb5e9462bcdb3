// libFuzzer harness: the control socket's protocol — bytes as a client sends them, split into reads
// where the input says, through a connection's session (framing, limits, rate, the time a request
// may take) and the parser, and each screenshot request through the gate all clients share.
import Control
import FuzzSupport

@main enum Harness { static func main() { runFuzzer(fuzz) } }

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var session = ControlSession(openedAt: 0)
    // The first byte chooses the read size, so a request arrives whole or in pieces.
    let chunk = max(1, Int(bytes.first ?? 1) % 64 + 1)
    // The second byte chooses the time between reads, from 10 ms to 25 s: a trickle that passes the
    // bound on a request's whole time (issue 54 item 12) as well as a burst.
    let step = 0.01 + Double(bytes.count > 1 ? bytes[1] : 0) / 10
    var gate = ScreenshotGate(interval: 0.5)
    var lastAllowed: Double?
    var t = 0.0
    var offset = 0
    var answered = 0
    while offset < bytes.count && !session.closed {
        let piece = Array(bytes[offset..<min(bytes.count, offset + chunk)])
        offset += piece.count
        t += step
        for action in session.received(piece, at: t) {
            switch action {
            case .request(let command):
                answered += 1
                if case .screenshot = command {
                    // One written at a time (none in flight here) and never two within the interval.
                    if gate.request(at: t, inFlight: 0) == nil {
                        if let last = lastAllowed { fuzzCheck(t - last >= 0.5, "two screenshots within half a second") }
                        lastAllowed = t
                    }
                    fuzzCheck(gate.request(at: t, inFlight: 1) != nil, "a screenshot while one is written")
                }
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
