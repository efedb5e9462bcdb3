// libFuzzer harness: the gesture recognizer on arbitrary event sequences (any slot, position,
// time, order), at arbitrary picture sizes; gestures stay inside the picture and are well formed.
import FuzzSupport
import Input
import InputModel

@main enum Harness { static func main() { runFuzzer(fuzz) } }

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var width = input.double(), height = input.double()
    if input.bool() { width = Double(input.int(below: 4000)); height = Double(input.int(below: 4000)) }
    var recognizer = GestureRecognizer(width: width, height: height)
    let device = InputDeviceInfo(id: 1, name: "fuzz", sysname: "event0", capabilities: [.touch, .pointer, .keyboard])
    var events = 0
    while !input.isAtEnd && events < 4096 {
        events += 1
        let slot = input.int(below: 12) - 2
        let time = input.bool() ? input.uint64() : UInt64(events * 10_000)
        let event: InputEvent
        switch input.byte() % 11 {
        case 0: event = .touchDown(slot: slot, x: input.double(), y: input.double(), time: time)
        case 1: event = .touchMotion(slot: slot, x: input.double(), y: input.double(), time: time)
        case 2: event = .touchUp(slot: slot, time: time)
        case 3: event = .touchCancel(slot: slot, time: time)
        case 4: event = .touchFrame(time: time)
        case 5: event = .pointerMotion(x: input.double(), y: input.double(), time: time)
        case 6: event = .pointerButton(button: input.bool() ? leftMouseButton : UInt32(input.byte()), pressed: input.bool(),
                                       x: input.double(), y: input.double(), time: time)
        case 7: event = .key(code: UInt32(input.byte()), pressed: input.bool(), command: nil, time: time)
        case 8: event = .deviceAdded(device)
        case 9: event = .deviceRemoved(device)
        default:
            recognizer.resize(width: input.double(), height: input.double())
            continue
        }
        let w = recognizer.configuration.width, h = recognizer.configuration.height
        recognizer.process(event) { gesture in
            switch gesture {
            case .scrubBegan(let x, let y), .scrubMoved(let x, let y), .tap(let x, let y):
                fuzzCheck(x.isFinite && y.isFinite, "gesture position finite")
                if w.isFinite && h.isFinite && w > 0 && h > 0 {
                    fuzzCheck(x >= 0 && x <= w && y >= 0 && y <= h, "gesture inside the picture: \(x),\(y) in \(w)x\(h)")
                }
            case .scrubEnded, .swipe: break
            }
        }
    }
    return 0
}
