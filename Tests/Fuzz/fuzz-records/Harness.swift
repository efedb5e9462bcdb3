// libFuzzer harness: the kernel record parsers: netlink uevent datagrams and inotify event buffers.
import FuzzSupport
@testable import LinuxIO

@main enum Harness { static func main() { runFuzzer(fuzz) } }

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let event = UEventMonitor.parse(bytes) {
        fuzzCheck(event.properties.count <= bytes.count, "no more properties than bytes")
        _ = event.subsystem
        _ = event.deviceName
    }
    let events = Inotify.parse(bytes)
    fuzzCheck(events.count * 16 <= bytes.count, "every inotify record has its header")
    for e in events { fuzzCheck((e.name?.unicodeScalars.count ?? 0) <= bytes.count, "name within the buffer") }
    return 0
}
