import Glibc
import Testing

@testable import LinuxIO

/// The one whole-file reader: regular files only, never blocking, never past its limit.
@Suite struct RegularFileTests {
    static func temporary(_ name: String) -> String { "/tmp/tickerboard-rf-\(getpid())-\(name)" }

    @Test("reads AW hole file") func readsAWholeFile() throws {
        let path = Self.temporary("whole")
        defer { unlink(path) }
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try AtomicFile.write(bytes, to: path)
        #expect(try RegularFile.read(path, limit: 100_000) == bytes)
        #expect(throws: FileReadError.tooLarge(bytes: 100_000, limit: 99_999)) { try RegularFile.read(path, limit: 99_999) }
    }

    @Test("a FIFO is refused without blocking") func aFIFOIsRefusedWithoutBlocking() {
        let path = Self.temporary("fifo")
        defer { unlink(path) }
        #expect(mkfifo(path, 0o600) == 0)
        // Without O_NONBLOCK this open would wait for a writer forever.
        #expect(throws: FileReadError.notRegularFile) { try RegularFile.read(path, limit: 1 << 20) }
    }

    @Test("directories devices and missing files") func directoriesDevicesAndMissingFiles() {
        #expect(throws: FileReadError.isDirectory) { try RegularFile.read("/tmp", limit: 10) }
        #expect(throws: FileReadError.notRegularFile) { try RegularFile.read("/dev/zero", limit: 10) }
        #expect(throws: FileReadError.notFound) { try RegularFile.read("/nonexistent/x", limit: 10) }
    }

    /// procfs reports size 0: the limit, not the size, bounds the read.
    @Test("proc files are read to their end") func procFilesAreReadToTheirEnd() throws {
        let status = try RegularFile.read("/proc/self/status", limit: 1 << 16)
        #expect(String(decoding: status, as: UTF8.self).contains("VmRSS"))
        #expect(throws: FileReadError.tooLarge(bytes: 11, limit: 10)) { try RegularFile.read("/proc/self/status", limit: 10) }
    }

    /// The one atomic writer: exactly the mode asked for whatever the umask, no temporary left
    /// behind, and the old file intact when the new one cannot be written.
    @Test("atomic writes replace whole or not at all") func atomicWritesReplaceWholeOrNotAtAll() throws {
        let dir = Self.temporary("atomic")
        mkdir(dir, 0o700)
        defer { _ = try? FileManagerless.removeTree(dir) }
        let path = dir + "/data.csv"
        let old = umask(0o077)
        defer { umask(old) }
        try AtomicFile.write(Array("one".utf8), to: path, permissions: 0o644, durable: true)
        try AtomicFile.write(Array("two".utf8), to: path, permissions: 0o644)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o644)
        #expect(try RegularFile.read(path, limit: 10) == Array("two".utf8))
        #expect(FileManagerless.names(in: dir) == ["data.csv"])
        // a directory where the file should go: the write fails, nothing is left behind
        mkdir(dir + "/sub.csv", 0o700)
        #expect(throws: Errno.self) { try AtomicFile.write(Array("x".utf8), to: dir + "/sub.csv") }
        #expect(FileManagerless.names(in: dir) == ["data.csv", "sub.csv"])
    }

    /// A link planted at the name the old writer used (`.NAME.tmp-PID`, predictable) made root's
    /// write land on its target and re-mode it. The temporary is now random and created
    /// exclusively without following links: the target stays as it was.
    @Test("a symbolic link planted at a temporary name never redirects the write")
    func plantedLinkIsNotFollowed() throws {
        let dir = Self.temporary("planted")
        mkdir(dir, 0o700)
        defer { _ = try? FileManagerless.removeTree(dir) }
        let secret = dir + "/secret", path = dir + "/data.csv"
        try AtomicFile.write(Array("key".utf8), to: secret, permissions: 0o600)
        #expect(symlink(secret, dir + "/.data.csv.tmp-\(getpid())") == 0)
        try AtomicFile.write(Array("prices".utf8), to: path, permissions: 0o644)
        var info = stat()
        #expect(stat(secret, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try RegularFile.read(secret, limit: 10) == Array("key".utf8))
        #expect(try RegularFile.read(path, limit: 10) == Array("prices".utf8))
        #expect(FileManagerless.names(in: dir).filter { $0.hasPrefix(".data.csv.tmp-") && $0 != ".data.csv.tmp-\(getpid())" }.isEmpty)
    }

    /// `kill -9` mid-write leaves a temporary as large as the file; the next start removes what a
    /// writer that no longer runs left, and nothing of a live writer's (or the link's target).
    @Test("stale temporaries of dead writers are removed, a live writer's are kept")
    func staleTemporariesAreRemoved() throws {
        let dir = Self.temporary("stale")
        mkdir(dir, 0o700)
        defer { _ = try? FileManagerless.removeTree(dir) }
        let path = dir + "/data.csv"
        // A PID that is not running: a child that has exited and been reaped.
        let dead = fork()
        if dead == 0 { _exit(0) }
        var status: Int32 = 0
        waitpid(dead, &status, 0)
        try AtomicFile.write(Array("kept".utf8), to: dir + "/target", permissions: 0o600)
        try AtomicFile.write(Array("half".utf8), to: dir + "/.data.csv.tmp-\(dead)-abc")
        #expect(symlink(dir + "/target", dir + "/.data.csv.tmp-\(dead)-link") == 0)
        try AtomicFile.write(Array("mine".utf8), to: dir + "/.data.csv.tmp-\(getpid())-xyz")
        try AtomicFile.write(Array("other".utf8), to: dir + "/.other.csv.tmp-\(dead)-abc")
        let removed = AtomicFile.removeStaleTemporaries(of: path).sorted()
        #expect(removed == [".data.csv.tmp-\(dead)-abc", ".data.csv.tmp-\(dead)-link"])
        #expect(FileManagerless.names(in: dir).sorted() == [".data.csv.tmp-\(getpid())-xyz", ".other.csv.tmp-\(dead)-abc", "target"])
        #expect(try RegularFile.read(dir + "/target", limit: 10) == Array("kept".utf8))
    }
}

/// Just enough directory listing for the tests (no Foundation).
enum FileManagerless {
    static func names(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    static func removeTree(_ dir: String) throws {
        for name in names(in: dir) {
            let p = dir + "/" + name
            if rmdir(p) != 0 { unlink(p) }
        }
        rmdir(dir)
    }
}
