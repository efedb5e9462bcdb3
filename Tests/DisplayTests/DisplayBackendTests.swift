import CDRM
import Raster
import Testing

@testable import Display
import LinuxIO

@Suite struct ModeRequestTests {
    @Test(arguments: [
        ("1920x1080", ModeRequest(width: 1920, height: 1080)),
        ("1024x768@60", ModeRequest(width: 1024, height: 768, refreshHz: 60)),
        ("1280x800@74.99", ModeRequest(width: 1280, height: 800, refreshHz: 74.99)),
    ])
    func parses(text: String, expected: ModeRequest) {
        #expect(ModeRequest(text) == expected)
        #expect(ModeRequest(text)?.description == text)
    }

    @Test(arguments: ["", "1920", "x1080", "0x10", "1920x1080@", "1920x1080@-5", "axb"])
    func rejects(text: String) {
        #expect(ModeRequest(text) == nil)
    }
}

@Suite struct DisplayErrorTests {
    @Test func namesDeviceCallAndErrno() {
        let e = DisplayError(.accessDenied, device: "/dev/dri/card0", operation: "drmModeSetCrtc", errno: .permissionDenied,
                             detail: "Virtual-1 1280x800@75")
        #expect(e.description == "/dev/dri/card0: drmModeSetCrtc failed: Permission denied (errno 13) (Virtual-1 1280x800@75)")
    }

    @Test func missingCardIsNoDisplay() {
        do {
            _ = try KMSDisplay(options: .init(devicePath: "/nonexistent/dri/card7"))
            Issue.record("opened a missing card")
        } catch {
            #expect(error.kind == .noDisplay)
            #expect(error.description.hasPrefix("/nonexistent/dri/card7: open failed: No such file"))
        }
    }

    /// /dev/null opens but is no framebuffer: the error names the ioctl.
    @Test func notAFramebuffer() {
        do {
            _ = try FBDevDisplay(path: "/dev/null")
            Issue.record("/dev/null accepted as a framebuffer")
        } catch {
            #expect(error.operation == "FBIOGET_FSCREENINFO")
            #expect(error.errno == .notATerminal)
        }
    }
}

@Suite struct DRMModeTests {
    /// CEA 1920x1080@60: 148.5 MHz over 2200x1125; and the NTSC-style 59.94 variant, whose
    /// vrefresh field still says 60.
    @Test func refreshFromTimings() {
        var info = drmModeModeInfo()
        info.clock = 148_500
        info.hdisplay = 1920
        info.htotal = 2200
        info.vdisplay = 1080
        info.vtotal = 1125
        info.vrefresh = 60
        #expect(abs(DRMMode(info: info).refreshHz - 60) < 0.001)
        info.clock = 148_352
        #expect(abs(DRMMode(info: info).refreshHz - 59.94) < 0.01)
        info.flags = UInt32(DRM_MODE_FLAG_INTERLACE)
        #expect(abs(DRMMode(info: info).refreshHz - 119.88) < 0.02)
        info.clock = 0
        #expect(DRMMode(info: info).refreshHz == 60)
    }

    @Test func rowUnion() {
        #expect(ScanoutBuffer.union(0..<0, 5..<9) == 5..<9)
        #expect(ScanoutBuffer.union(2..<4, 0..<0) == 2..<4)
        #expect(ScanoutBuffer.union(2..<4, 10..<12) == 2..<12)
    }
}

@Suite struct OutputsReportTests {
    @Test func reportEndsWithNewlineAndMatchesExitCode() {
        let report = OutputsReport.make()
        #expect(report.text.hasSuffix("\n"))
        if report.exitCode == 1 {
            #expect(report.text == "no display: no /dev/dri/card* and no /dev/fb* devices\n")
        }
    }
}
