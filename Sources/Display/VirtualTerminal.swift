import CLinux
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// Cooperative VT switching: in `VT_PROCESS` mode the kernel asks the process owning the VT
/// (with a signal) before switching away, and tells it (same signal) when its VT is back. The
/// daemon then gives up the display and takes it back, instead of fighting the console or
/// another session for the screen.
public final class VirtualTerminal {
    public let path: String
    /// The signal the kernel sends for both requests; the caller adds it to its signalfd.
    public let signal: CInt
    /// True while our VT is the one on screen.
    public private(set) var isForeground = true
    private let file: OwnedDescriptor
    private var device: VTDevice { VTDevice(fd: file.rawValue) }
    private var savedMode = vt_mode()

    /// Takes part in switching of our own VT: the one on standard input when that is a VT (the
    /// unit's TTYPath=/dev/tty1), else the active one (`/sys/class/tty/tty0/active`). Nil when
    /// there is none or it cannot be opened (no VTs, or no permission: the unit grants tty1 only).
    /// Our VT need not be on screen: a desktop image's compositor runs on another VT, and the
    /// kernel then signals us when someone switches to ours.
    public init?(signal: CInt = SIGUSR2, log: (String) -> Void) {
        guard let active = Self.activeName() else { return nil }
        let own = Self.standardInputVT() ?? active
        path = "/dev/" + own
        isForeground = own == active
        self.signal = signal
        do { file = OwnedDescriptor(try FileDescriptor.open(path, .readWrite, options: .noControllingTerminal)) } catch {
            log("vt: cannot open \(path) (\(error)); VT switches are not coordinated")
            return nil
        }
        let vt = VTDevice(fd: file.rawValue)
        do { savedMode = try vt.mode() } catch {
            log("vt: \(path): VT_GETMODE failed (\(error)); VT switches are not coordinated")
            return nil
        }
        var mode = vt_mode()
        mode.mode = CChar(VT_PROCESS)
        mode.relsig = Int16(signal)
        mode.acqsig = Int16(signal)
        do { try vt.setMode(mode) } catch {
            log("vt: \(path): VT_SETMODE failed (\(error)); VT switches are not coordinated")
            return nil
        }
        log("vt: \(path): switching away releases the display" + (isForeground ? "" : "; \(active) is on screen now"))
    }

    deinit { restore() }

    /// What the kernel's signal asks for.
    public enum Request { case release, acquire }

    /// Interprets the VT signal: a request to let go while we are on screen, else our VT is back.
    public func request() -> Request { isForeground ? .release : .acquire }

    /// Allows the pending switch away; call after the display was given up.
    public func allowRelease() {
        try? device.allowRelease()
        isForeground = false
    }

    /// Acknowledges that our VT is back; the display may be taken again.
    public func acknowledgeAcquire() {
        try? device.acknowledgeAcquire()
        isForeground = true
    }

    /// Gives switching back to the kernel. Idempotent.
    public func restore() {
        guard file.descriptor != nil else { return }
        try? device.setMode(savedMode)
        file.close()
    }

    /// `ttyN` when standard input is virtual terminal N (N >= 1), else nil.
    static func standardInputVT() -> String? {
        guard isatty(0) == 1, let name = ttyname(0) else { return nil }
        return vtName(String(cString: name).split(separator: "/").last.map(String.init) ?? "")
    }

    static func vtName(_ name: String) -> String? {
        guard name.hasPrefix("tty"), name.count > 3, name.dropFirst(3).allSatisfy(\.isNumber), name != "tty0" else { return nil }
        return name
    }

    static func activeName() -> String? {
        guard let bytes = try? RegularFile.read("/sys/class/tty/tty0/active", limit: 4096), !bytes.isEmpty else { return nil }
        let name = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\n ")
        guard name.hasPrefix("tty"), name.dropFirst(3).allSatisfy(\.isNumber), name.count > 3 else { return nil }
        return name
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.last, set.contains(c) { s.removeLast() }
        while let c = s.first, set.contains(c) { s.removeFirst() }
        return String(s)
    }
}
