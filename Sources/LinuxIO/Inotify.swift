import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// File-change notifications (data files, the config file) as a readable descriptor.
public final class Inotify {
    public let descriptor: FileDescriptor

    /// What to watch for; the values are inotify's `IN_*` bits.
    public struct Mask: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let modify = Mask(rawValue: UInt32(IN_MODIFY))
        public static let attributes = Mask(rawValue: UInt32(IN_ATTRIB))
        public static let closeWrite = Mask(rawValue: UInt32(IN_CLOSE_WRITE))
        public static let movedFrom = Mask(rawValue: UInt32(IN_MOVED_FROM))
        public static let movedTo = Mask(rawValue: UInt32(IN_MOVED_TO))
        public static let create = Mask(rawValue: UInt32(IN_CREATE))
        public static let delete = Mask(rawValue: UInt32(IN_DELETE))
        public static let deleteSelf = Mask(rawValue: UInt32(IN_DELETE_SELF))
        public static let moveSelf = Mask(rawValue: UInt32(IN_MOVE_SELF))
        /// Set in events: the watch is gone (file deleted, fs unmounted).
        public static let ignored = Mask(rawValue: UInt32(IN_IGNORED))
        /// Set in events: the kernel's queue overflowed; rescan everything.
        public static let overflow = Mask(rawValue: UInt32(IN_Q_OVERFLOW))
    }

    /// A watch, as returned by ``addWatch(_:mask:)``.
    public struct Watch: RawRepresentable, Hashable, Sendable {
        public let rawValue: CInt
        public init(rawValue: CInt) { self.rawValue = rawValue }
    }

    /// One change: which watch, what happened, and the file name for directory watches.
    public struct Event: Sendable, Equatable {
        public var watch: Watch
        public var mask: Mask
        public var cookie: UInt32
        public var name: String?
    }

    public init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try retryingOnInterrupt { inotify_init1(CInt(IN_NONBLOCK | IN_CLOEXEC)) })
    }

    deinit { try? descriptor.close() }

    /// Watches a file or directory. The C function is `inotify_add_watch`.
    public func addWatch(_ path: String, mask: Mask) throws(Errno) -> Watch {
        Watch(rawValue: try retryingOnInterrupt { inotify_add_watch(descriptor.rawValue, path, mask.rawValue) })
    }

    public func removeWatch(_ watch: Watch) throws(Errno) {
        _ = try retryingOnInterrupt { inotify_rm_watch(descriptor.rawValue, watch.rawValue) }
    }

    /// Everything queued right now (empty when nothing is).
    public func readEvents() throws(Errno) -> [Event] {
        var events: [Event] = []
        // Large enough for many events with names (NAME_MAX + header each).
        let capacity = 16 * 1024
        while true {
            let bytes: [UInt8]
            do { bytes = try descriptor.read(upTo: capacity) } catch .wouldBlock { return events }
            if bytes.isEmpty { return events }
            events += Inotify.parse(bytes)
        }
    }

    /// Decodes a buffer of `struct inotify_event` records (header: wd, mask, cookie, len; then
    /// `len` bytes of NUL-padded name).
    static func parse(_ bytes: [UInt8]) -> [Event] {
        var out: [Event] = []
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        bytes.withUnsafeBytes { raw in
            while offset + header <= raw.count {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: CInt.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
                let len = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                var name: String?
                if len > 0, offset + header + len <= raw.count {
                    let nameBytes = raw[(offset + header)..<(offset + header + len)].prefix { $0 != 0 }
                    name = String(decoding: nameBytes, as: UTF8.self)
                }
                out.append(Event(watch: Watch(rawValue: wd), mask: Mask(rawValue: mask), cookie: cookie, name: name))
                offset += header + len
            }
        }
        return out
    }
}
