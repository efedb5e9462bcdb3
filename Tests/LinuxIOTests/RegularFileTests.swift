import Glibc
import Testing

@testable import LinuxIO

/// The one whole-file reader: regular files only, never blocking, never past its limit.
@Suite struct RegularFileTests {
    static func temporary(_ name: String) -> String { "/tmp/tickerboard-rf-\(getpid())-\(name)" }

    @Test func readsAWholeFile() throws {
        let path = Self.temporary("whole")
        defer { unlink(path) }
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try AtomicFile.write(bytes, to: path)
        #expect(try RegularFile.read(path, limit: 100_000) == bytes)
        #expect(throws: FileReadError.tooLarge(bytes: 100_000, limit: 99_999)) { try RegularFile.read(path, limit: 99_999) }
    }

    @Test func aFIFOIsRefusedWithoutBlocking() {
        let path = Self.temporary("fifo")
        defer { unlink(path) }
        #expect(mkfifo(path, 0o600) == 0)
        // Without O_NONBLOCK this open would wait for a writer forever.
        #expect(throws: FileReadError.notRegularFile) { try RegularFile.read(path, limit: 1 << 20) }
    }

    @Test func directoriesDevicesAndMissingFiles() {
        #expect(throws: FileReadError.isDirectory) { try RegularFile.read("/tmp", limit: 10) }
        #expect(throws: FileReadError.notRegularFile) { try RegularFile.read("/dev/zero", limit: 10) }
        #expect(throws: FileReadError.notFound) { try RegularFile.read("/nonexistent/x", limit: 10) }
    }

    /// procfs reports size 0: the limit, not the size, bounds the read.
    @Test func procFilesAreReadToTheirEnd() throws {
        let status = try RegularFile.read("/proc/self/status", limit: 1 << 16)
        #expect(String(decoding: status, as: UTF8.self).contains("VmRSS"))
        #expect(throws: FileReadError.tooLarge(bytes: 11, limit: 10)) { try RegularFile.read("/proc/self/status", limit: 10) }
    }
}
