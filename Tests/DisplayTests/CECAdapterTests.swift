import Glibc
import LinuxIO
import Testing

@testable import Display

/// The CEC adapter's unsafe half where no adapter is needed: finding the nodes, and a node that is
/// no CEC adapter (the daemon then runs without HDMI-CEC; the VM's vivid proves the real one).
@Suite("CEC adapter")
struct CECAdapterTests {
    @Test("the /dev/cecN nodes in number order, nothing else")
    func devicePaths() throws {
        var template = Array("/tmp/tb-cec-XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer {
            for name in FileSystem.list(dir) { unlink(dir + "/" + name) }
            rmdir(dir)
        }
        for name in ["cec10", "cec2", "cec0", "cecx", "card0", "cec"] {
            close(open(dir + "/" + name, O_CREAT | O_WRONLY, 0o600))
        }
        #expect(CECAdapter.devicePaths(directory: dir) == [dir + "/cec0", dir + "/cec2", dir + "/cec10"])
        #expect(CECAdapter.devicePaths(directory: dir + "/none").isEmpty)
    }

    @Test("a node that is no CEC adapter is refused with the kernel's word for it")
    func notAnAdapter() {
        do throws(Errno) {
            _ = try CECAdapter(path: "/dev/null")
            Issue.record("/dev/null opened as a CEC adapter")
        } catch {
            // The kernel says ENOTTY; qemu-user, which runs the arm64 tests, knows no CEC ioctl (ENOSYS).
            #expect(error == .notATerminal || error == Errno(rawValue: ENOSYS), "\(error)")
        }
        #expect(throws: Errno.noSuchFileOrDirectory) { try CECAdapter(path: "/dev/tb-no-such-cec") }
    }

    @Test("transmit outcomes read as the log says them")
    func txStatus() {
        #expect(CECAdapter.describe(txStatus: 0x01) == "ok")
        #expect(CECAdapter.describe(txStatus: 0x24) == "nack,max-retries")
        #expect(CECAdapter.describe(txStatus: 0x80) == "timeout")
    }
}
