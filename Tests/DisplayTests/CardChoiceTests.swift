import Testing

@testable import Display
@testable import DisplayModel

/// The card `auto` takes, on the layouts of real boards (a Pi's render-only v3d numbered before
/// its vc4 display controller, a Pi 5's three cards) and of PCs.
@Suite struct CardChoiceTests {
    typealias C = DRMCardSummary.Connector

    static func renderOnly(_ n: Int, _ driver: String) -> DRMCardSummary {
        DRMCardSummary(path: "/dev/dri/card\(n)", driver: driver, modeset: false, connectors: [], dumbBuffers: driver == "vgem")
    }

    static func display(_ n: Int, _ driver: String = "vc4", connectors: [C], dumb: Bool = true) -> DRMCardSummary {
        DRMCardSummary(path: "/dev/dri/card\(n)", driver: driver, modeset: true, connectors: connectors, dumbBuffers: dumb)
    }

    @Test("Pi 4: v3d as card0, vc4 as card1 with a monitor on HDMI-A-2: card1")
    func piRenderOnlyFirst() {
        let cards = [Self.renderOnly(0, "v3d"), Self.display(1, connectors: [C(name: "HDMI-A-1", connected: false), C(name: "HDMI-A-2", connected: true)])]
        let choice = DRMCardChoice.choose(cards)
        #expect(choice.path == "/dev/dri/card1")
        guard case .use(_, let reason) = choice else { Issue.record("\(choice)"); return }
        #expect(reason.contains("HDMI-A-2 connected") && reason.contains("card0 (v3d) render-only"), "\(reason)")
    }

    @Test("Pi 4 with the monitor off at boot: wait on vc4, never the render-only card")
    func piMonitorOff() {
        let cards = [Self.renderOnly(0, "v3d"), Self.display(1, connectors: [C(name: "HDMI-A-1", connected: false), C(name: "HDMI-A-2", connected: false)])]
        #expect(DRMCardChoice.choose(cards) == .wait(path: "/dev/dri/card1",
            reason: "/dev/dri/card1 (vc4) drives displays but nothing is connected (HDMI-A-1, HDMI-A-2); skipped /dev/dri/card0 (v3d) render-only (no KMS outputs)"))
    }

    @Test("Pi 5: three cards, the display controller last; a named connector picks its card")
    func piFive() {
        let cards = [Self.renderOnly(0, "v3d"), Self.display(1, "drm-rp1-dsi", connectors: [C(name: "DSI-1", connected: true)]),
                     Self.display(2, connectors: [C(name: "HDMI-A-1", connected: true), C(name: "HDMI-A-2", connected: false)])]
        #expect(DRMCardChoice.choose(cards).path == "/dev/dri/card1")
        #expect(DRMCardChoice.choose(cards, connector: "HDMI-A-1").path == "/dev/dri/card2")
        // The named connector is unplugged: wait on the card that has it, not on the DSI panel.
        guard case .wait(let path, _) = DRMCardChoice.choose(cards, connector: "HDMI-A-2") else { Issue.record("not wait"); return }
        #expect(path == "/dev/dri/card2")
        guard case .none(let reason) = DRMCardChoice.choose(cards, connector: "DP-1") else { Issue.record("not none"); return }
        #expect(reason.hasPrefix("no card has a connector named DP-1"))
    }

    @Test("vgem (dumb buffers, no outputs) and a display card without dumb buffers are never taken")
    func unusableCards() {
        let vgem = Self.renderOnly(0, "vgem")
        let noDumb = Self.display(1, "somegpu", connectors: [C(name: "DP-1", connected: true)], dumb: false)
        let choice = DRMCardChoice.choose([vgem, noDumb])
        guard case .none(let reason) = choice else { Issue.record("\(choice)"); return }
        #expect(reason == "no card can show a picture: /dev/dri/card0 (vgem) render-only (no KMS outputs), /dev/dri/card1 (somegpu) no dumb buffers")
        #expect(DRMCardChoice.choose([]) == .none(reason: "no /dev/dri/card* devices"))
        let locked = DRMCardSummary(path: "/dev/dri/card0", driver: "?", modeset: false, connectors: [], dumbBuffers: false,
                                    openProblem: "Permission denied (errno 13)")
        #expect(locked.unusableBecause == "cannot open: Permission denied (errno 13)")
    }

    @Test("a connected output on a later card wins over an earlier card with nothing connected")
    func connectedWins() {
        let cards = [Self.display(0, "bochs-drm", connectors: [C(name: "Virtual-1", connected: false)]),
                     Self.display(1, "vkms", connectors: [C(name: "Virtual-1", connected: true)])]
        #expect(DRMCardChoice.choose(cards).path == "/dev/dri/card1")
    }

    @Test("framebuffer paths", arguments: [("/dev/fb0", true), ("/dev/graphics/fb1", true), ("/dev/dri/card0", false),
                      ("/dev/dri/by-path/platform-gpu-card", false), ("/dev/fbx", false)])
    func framebufferPaths(path: String, isFramebuffer: Bool) {
        #expect(DisplayBackends.isFramebuffer(path) == isFramebuffer)
    }

    @Test("the outputs report names auto's pick and why")
    func outputsLine() {
        #expect(OutputsReport.autoLine(.wait(path: "/dev/dri/card1", reason: "r"), framebuffer: true)
                == "auto: /dev/dri/card1, waiting for a display, because r")
        #expect(OutputsReport.autoLine(.none(reason: "r"), framebuffer: true) == "auto: /dev/fb0 until a KMS output appears, because r")
        #expect(OutputsReport.autoLine(.none(reason: "r"), framebuffer: false) == "auto: nothing yet (r)")
    }
}

/// Issue 49 item 1: the unit gives the daemon tty1 (TTYPath=/dev/tty1, StandardInput=tty) and only
/// tty1 (DeviceAllow). On a desktop image another VT is on screen, so the daemon must take part in
/// switching of its own VT, named by its standard input, not of the active one it may not open.
@Suite struct OwnVirtualTerminalTests {
    @Test("a VT is ttyN with N >= 1; tty0 (the active one's alias), serial lines and pseudo-terminals are not")
    func vtNames() {
        #expect(VirtualTerminal.vtName("tty1") == "tty1")
        #expect(VirtualTerminal.vtName("tty12") == "tty12")
        #expect(VirtualTerminal.vtName("tty0") == nil)
        #expect(VirtualTerminal.vtName("ttyS0") == nil)
        #expect(VirtualTerminal.vtName("ttyAMA0") == nil)
        #expect(VirtualTerminal.vtName("3") == nil)
        #expect(VirtualTerminal.vtName("tty") == nil)
    }
}
