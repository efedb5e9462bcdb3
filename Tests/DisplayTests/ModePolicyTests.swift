@testable import Display
import DisplayModel
import Raster
import Testing

/// Issue 49 items 4 and 5, with the numbers the drivers report.
@Suite struct ModePolicyTests {
    /// tinydrm's SPI panels declare DRM_SIMPLE_MODE(hd, vd, hd_mm, vd_mm): clock 1 (kHz, "to pass
    /// validation"), htotal = hd, vtotal = vd (include/drm/drm_modes.h). ili9341's yx240qv29_mode is
    /// DRM_SIMPLE_MODE(240, 320, 37, 49) (drivers/gpu/drm/tiny/ili9341.c), ili9486's
    /// DRM_SIMPLE_MODE(480, 320, 73, 49) (tiny/ili9486.c), ili9163's DRM_SIMPLE_MODE(128, 160, 28, 35):
    /// 1000 / (240 x 320) = 0.013 Hz, 1000 / (480 x 320) = 0.0065 Hz, which the pacer clamped to one
    /// frame a second. (A later kernel gives ili9486 DRM_MODE_INIT(30, …): a real 30 Hz, kept.)
    @Test("an SPI panel's 1 kHz DRM_SIMPLE_MODE rate is unknown: paced by completion at up to 60 Hz; real rates stay")
    func spiPanelRate() {
        for (w, h) in [(240, 320), (480, 320), (128, 160)] {
            let timings = 1000.0 / Double(w * h)
            let r = ModePolicy.pacingRate(timingsHz: timings)
            #expect(r.hz == 60 && !r.known, "\(w)x\(h): \(timings) Hz")
        }
        // CEA 1080p60: 148500 kHz over 2200 x 1125 = 60 Hz; 1080p at 59.94: 148352 kHz.
        #expect(ModePolicy.pacingRate(timingsHz: 148_500_000 / (2200.0 * 1125)) == (60, true))
        #expect(ModePolicy.pacingRate(timingsHz: 148_352_000 / (2200.0 * 1125)).known)
        // 4K at 30 Hz (a Pi 4 without hdmi_enable_4kp60): 297000 kHz over 4400 x 2250.
        #expect(ModePolicy.pacingRate(timingsHz: 297_000_000 / (4400.0 * 2250)) == (30, true))
        #expect(ModePolicy.pacingRate(timingsHz: .nan) == (60, false))
        // DRM_MODE_INIT(30, 480, 320, …): clock 480 x 320 x 30 / 1000 = 4608 kHz, so 30 Hz exactly.
        #expect(ModePolicy.pacingRate(timingsHz: 4_608_000 / (480.0 * 320)) == (30, true))
    }

    /// A 4K TV's EDID as a Pi 4 on vc4 lists it: 3840x2160 preferred at 30 Hz (4kp60 off), then
    /// 1080p at 60 and 50, 720p, 576p, 480p.
    static let tv4K = [
        OfferedMode(width: 3840, height: 2160, refreshHz: 30, isPreferred: true),
        OfferedMode(width: 3840, height: 2160, refreshHz: 25),
        OfferedMode(width: 1920, height: 1080, refreshHz: 50),
        OfferedMode(width: 1920, height: 1080, refreshHz: 60),
        OfferedMode(width: 1280, height: 720, refreshHz: 60),
        OfferedMode(width: 720, height: 576, refreshHz: 50),
        OfferedMode(width: 720, height: 480, refreshHz: 59.94),
    ]

    @Test("auto on a 4K TV takes 1080p at its highest rate; 'preferred' (no limit) the TV's own; a panel on its side fits the cap")
    func autoCapsAt1080p() {
        #expect(ModePolicy.autoMode(Self.tv4K, maxSize: ModePolicy.defaultMaxSize) == 3)
        #expect(ModePolicy.autoMode(Self.tv4K, maxSize: nil) == 0)
        #expect(ModePolicy.autoMode(Self.tv4K, maxSize: ModeRequest(width: 1280, height: 720)) == 4)
        // The Touch Display 2's 720x1280 portrait mode fits 1920x1080 turned.
        let portrait = [OfferedMode(width: 720, height: 1280, refreshHz: 60, isPreferred: true)]
        #expect(ModePolicy.autoMode(portrait, maxSize: ModePolicy.defaultMaxSize) == 0)
        // Nothing fits: the preferred mode rather than nothing.
        let only4K = [OfferedMode(width: 3840, height: 2160, refreshHz: 60, isPreferred: true)]
        #expect(ModePolicy.autoMode(only4K, maxSize: ModePolicy.defaultMaxSize) == 0)
        #expect(ModePolicy.autoMode([], maxSize: nil) == nil)
    }

    /// A Pi 4 with Debian 13's device tree: a 64 MiB CMA pool (67,108,864 bytes), of which the
    /// console's framebuffer (drm_fbdev at the preferred mode, 3840 x 2160 x 4 = 33,177,600 bytes)
    /// already takes one 4K buffer's worth. An allocator that fails like it: one 4K buffer fits
    /// (33,931,264 left), the second does not; after `preferred`'s 4K the fallback uses that one.
    /// With a console at 4K and a pool of 40 MiB, not even one 4K buffer: the next smaller mode.
    @Test("buffers that do not fit: one buffer, else the next smaller mode, else give up (a CMA pool that fails like vc4's)")
    func bufferFallback() {
        func run(pool: Int, start: Int) -> [BufferFallback.Step] {
            var fallback = BufferFallback(modes: Self.tv4K, start: start)
            var steps = [fallback.step]
            while case .make(let mode, let wanted) = fallback.step {
                var free = pool, made = 0
                let bytes = Self.tv4K[mode].width * Self.tv4K[mode].height * 4
                while made < wanted, free >= bytes { free -= bytes; made += 1 }
                steps.append(fallback.made(made))
            }
            return steps
        }
        let cma = 67_108_864 - 33_177_600
        #expect(run(pool: cma, start: 0) == [.make(mode: 0, buffers: 2), .use(mode: 0, buffers: 1)])
        #expect(run(pool: 40 << 20 - 33_177_600, start: 0)
                == [.make(mode: 0, buffers: 2), .make(mode: 3, buffers: 2), .use(mode: 3, buffers: 1)])
        #expect(run(pool: 1 << 20, start: 3).last == .giveUp)
        #expect(run(pool: 1 << 30, start: 3) == [.make(mode: 3, buffers: 2), .use(mode: 3, buffers: 2)])
        // Smaller modes, largest first, each size once at its highest rate.
        #expect(ModePolicy.smallerModes(Self.tv4K, than: 0) == [3, 4, 5, 6])
    }
}

/// Issue 49 item 3: vc4's fbdev emulation and fbtft's SPI panels are RGB565; the fbdev backend
/// refused them. Expected values by hand: RGB565 keeps red's and blue's top 5 bits and green's 6.
@Suite struct RGB565Tests {
    @Test("XRGB8888 to RGB565: exact where the value sits on a step; a 4x4 tile's mean reproduces an 8-bit value between steps")
    func conversion() throws {
        #expect(PixelBuffer.rgb565(0xFFFF_FFFF, x: 0, y: 0) == 0xFFFF)
        #expect(PixelBuffer.rgb565(0xFFFF_0000, x: 3, y: 2) == 0xF800)
        #expect(PixelBuffer.rgb565(0xFF00_FF00, x: 1, y: 1) == 0x07E0)
        #expect(PixelBuffer.rgb565(0xFF00_0000, x: 0, y: 3) == 0x0000)   // the largest threshold (15) still black
        // 0x80 grey at threshold 0: red 128 >> 3 = 16, green 128 >> 2 = 32, blue 16: 0x8410.
        #expect(PixelBuffer.rgb565(0xFF80_8080, x: 0, y: 0) == 0x8410)
        // Red 132 lies between the steps 128 and 136: over a tile half the pixels take each, mean 132.
        var sum = 0
        for y in 0..<4 { for x in 0..<4 { sum += Int(PixelBuffer.rgb565(0xFF84_0000, x: x, y: y) >> 11) * 8 } }
        #expect(sum == 132 * 16)
    }

    @Test("a damaged rectangle is written as 2-byte pixels at the framebuffer's pitch, nothing else touched")
    func copyIntoFramebuffer() {
        var frame = PixelBuffer(width: 8, height: 4, fill: 0xFF00_0000)
        frame.pixels[1 * frame.stride + 2] = 0xFFFF_FFFF
        let pitch = 20   // 8 pixels of 2 bytes and 4 bytes of padding, as a driver may pad lines
        var memory = [UInt8](repeating: 0xAA, count: pitch * 4)
        let bytes = memory.withUnsafeMutableBytes {
            frame.copyRGB565(DamageRegion([IntRect(x0: 2, y0: 1, x1: 4, y1: 3)], bounds: frame.bounds), to: $0.baseAddress!, pitch: pitch)
        }
        #expect(bytes == 2 * 2 * 2)
        #expect(memory[1 * pitch + 4] == 0xFF && memory[1 * pitch + 5] == 0xFF)   // (2, 1) white, little-endian
        #expect(memory[1 * pitch + 6] == 0 && memory[1 * pitch + 7] == 0)         // (3, 1) black
        #expect(memory[0] == 0xAA && memory[1 * pitch + 3] == 0xAA && memory[3 * pitch + 4] == 0xAA)
    }
}

/// Issue 49 items 6 and 7. A Pi 4 has vc4-hdmi-0 and -1 (/dev/cec0 and /dev/cec1), each telling its
/// DRM connector (CEC_CAP_CONNECTOR_INFO, drivers/gpu/drm/vc4/vc4_hdmi.c); with the TV on the second
/// port, cec0's physical address is f.f.f.f (0xFFFF: nothing there) and cec1's 1.0.0.0.
@Suite struct CECChoiceTests {
    typealias C = CECAdapterChoice.Candidate
    static let hdmi0 = CECAdapterChoice.DRMConnectorID(card: 1, connector: 32)
    static let hdmi1 = CECAdapterChoice.DRMConnectorID(card: 1, connector: 42)

    @Test("the adapter on the screen's connector, else one with a TV behind it, else one that can send; never a sink")
    func choice() {
        let pi = [C(canTransmit: true, physicalAddress: 0xFFFF, drmConnector: Self.hdmi0),
                  C(canTransmit: true, physicalAddress: 0x1000, drmConnector: Self.hdmi1)]
        #expect(CECAdapterChoice.choose(pi, output: Self.hdmi1) == 1)
        #expect(CECAdapterChoice.choose(pi, output: nil) == 1, "vivid with two outputs, the first invalid: the second")
        // The screen's own port wins even while its TV sleeps with hot-plug dropped (it can be woken).
        let asleep = [C(canTransmit: true, physicalAddress: 0xFFFF, drmConnector: Self.hdmi0),
                      C(canTransmit: true, physicalAddress: 0x2000, drmConnector: Self.hdmi1)]
        #expect(CECAdapterChoice.choose(asleep, output: Self.hdmi0) == 0)
        // Nothing valid anywhere: the first that can send (to wake the TV from Unregistered).
        #expect(CECAdapterChoice.choose([C(canTransmit: false, physicalAddress: 0x1000), C(canTransmit: true, physicalAddress: 0xFFFF)], output: nil) == 1)
        #expect(CECAdapterChoice.choose([C(canTransmit: true, physicalAddress: 0)], output: nil) == nil, "0.0.0.0 is the TV itself")
    }

    @Test("waking a TV that dropped hot-plug: Image View On from Unregistered to the TV is f0:04")
    func wakeFrame() {
        #expect(CECMessage.wakeFromUnregistered.bytes == [0xF0, 0x04])
    }
}
