import CDRM
import CLinux
import DisplayModel
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// The `tickerboard outputs` report: every DRM card (driver, connectors with status, physical
/// size and panel orientation, modes with the preferred one marked) and every fbdev device —
/// what an installer needs before writing the config.
public enum OutputsReport {
    /// The report text and the exit status: 0 when at least one device was found, 1 otherwise.
    public static func make(connector: String? = nil) -> (text: String, exitCode: Int32) {
        var lines: [String] = []
        for path in DRMCardFinder.cardPaths() { lines += describeCard(path) }
        for path in framebufferPaths() { lines.append(describeFramebuffer(path)) }
        if lines.isEmpty { return ("no display: no /dev/dri/card* and no /dev/fb* devices\n", 1) }
        lines.append(autoLine(DRMCardFinder.choose(connector: connector), framebuffer: !framebufferPaths().isEmpty))
        return (lines.joined(separator: "\n") + "\n", 0)
    }

    /// The daemon's pick with `backend = auto` and no `device`, and why.
    static func autoLine(_ choice: DRMCardChoice, framebuffer: Bool) -> String {
        switch choice {
        case .use(let path, let reason): return "auto: \(path), because \(reason)"
        case .wait(let path, let reason): return "auto: \(path), waiting for a display, because \(reason)"
        case .none(let reason):
            return framebuffer ? "auto: /dev/fb0 until a KMS output appears, because \(reason)" : "auto: nothing yet (\(reason))"
        }
    }

    static func describeCard(_ path: String) -> [String] {
        let card: DRMCard
        do { card = try DRMCard(path: path) } catch { return ["\(path): cannot open: \(error.errno.map(String.init(describing:)) ?? "?")"] }
        let dumb = card.capability(DRM_CAP_DUMB_BUFFER) ?? 0 != 0
        // Asking for atomic only reports it here: the cap lives on this fd, which closes right after.
        let atomic = card.enableClientCapability(DRM_CLIENT_CAP_ATOMIC)
        var lines = ["\(path): driver \(card.driverName), dumb buffers \(dumb ? "yes" : "no"), atomic \(atomic ? "yes" : "no")"]
        guard let res = try? card.resources() else {
            lines.append("  no KMS resources (render-only or not a display device)")
            return lines
        }
        for id in res.connectors {
            guard let c = card.connector(id) else { continue }
            var line = "  connector \(c.name): \(c.status.rawValue)"
            if c.status == .connected {
                line += ", \(c.widthMM)x\(c.heightMM) mm, panel orientation \(panelOrientation(card, id) ?? "not reported")"
            }
            lines.append(line)
            if !c.modes.isEmpty {
                var seen = Set<String>()
                let modes = c.modes.compactMap { m -> String? in
                    let text = "\(m.width)x\(m.height)@\(ModeRequest.formatHz(m.refreshHz))\(m.isPreferred ? " (preferred)" : "")"
                    return seen.insert(text).inserted ? text : nil
                }
                lines.append("    modes: " + modes.joined(separator: ", "))
            }
        }
        return lines
    }

    /// The connector's "panel orientation" enum property (set for built-in panels mounted rotated).
    static func panelOrientation(_ card: DRMCard, _ connector: UInt32) -> String? {
        card.enumValueName(of: connector, type: UInt32(DRM_MODE_OBJECT_CONNECTOR), property: "panel orientation")
    }

    static func framebufferPaths() -> [String] {
        (0..<8).map { "/dev/fb\($0)" }.filter(FileSystem.exists)
    }

    static func describeFramebuffer(_ path: String) -> String {
        let device: OwnedDescriptor
        do { device = OwnedDescriptor(try FileDescriptor.open(path, .readOnly)) } catch { return "\(path): cannot open: \(error)" }
        defer { device.close() }  // (also keeps it open until here: ARC may end a lifetime at its last use)
        let fb = FBDevice(fd: device.rawValue)
        let fix: fb_fix_screeninfo, v: fb_var_screeninfo
        do throws(Errno) {
            fix = try fb.fixedInfo()
            v = try fb.variableInfo()
        } catch {
            return "\(path): not a framebuffer: \(error)"
        }
        let id = withUnsafeBytes(of: fix.id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(path): fbdev \(id), \(v.xres)x\(v.yres) \(v.bits_per_pixel) bpp, virtual \(v.xres_virtual)x\(v.yres_virtual)"
    }
}
