// The display as the core knows it: none, open with its output unplugged, presenting, given up on a
// VT switch or held by another DRM master, with what the shell said of it (`DisplayInfo`); when a
// display is opened again (a hotplug while there is none, a KMS output that replaces a framebuffer,
// a master that let go, a reload that changes `[display]`); and why it shows nothing of ours. Pure:
// the core hands it the display's events and carries out what comes back. What a change does to
// the frames in flight is the frames' own concern (`FrameFlow`), fed the same events by the core.

/// The display's lifecycle; see the file's header comment.
struct DisplayLink {
    /// The info is the display's as last reported. It is nil in an open state only when a change
    /// came with no display open (the later events of one read, after the first one's reopen
    /// failed): the change is taken as it comes, with nothing known of the screen.
    enum State: Equatable {
        /// No display: none opened yet, none to be had, or one given up to be opened again.
        case closed
        /// Open, its output not connected: nothing is presented until it is.
        case waitingForOutput(DisplayInfo?)
        /// Frames go to it.
        case presenting(DisplayInfo)
        /// Released on a VT switch, until the display says it is ours again.
        case away(DisplayInfo?)
        /// Another program is DRM master on it.
        case otherMaster(DisplayInfo?)
    }

    enum Action: Equatable {
        case log(Log.Priority, String)
        /// Watch for DRM and framebuffer devices that appear (or stop watching).
        case watchHotplug(Bool)
        case openDisplay
        /// Close the display and open one again.
        case reopenDisplay
        /// The display came back at another size: the scenes are laid out again.
        case relayout
    }

    /// How long after a hotplug the display is opened: udev sets the new node's permissions first.
    static let hotplugDelay = 0.5

    private(set) var state = State.closed
    /// When a hotplug's open is due (core seconds). It outlives the closed state it was armed in,
    /// as a deadline does: one that comes with a display open opens nothing.
    private(set) var retryAt: Double?
    /// Why the display shows nothing of ours (the status file's `display_detail`): the program that
    /// holds the screen, kept until the display is ours again or given up, so each holder is
    /// logged once.
    private(set) var detail: String?

    /// The display as the shell last described it, nil while there is none.
    var info: DisplayInfo? {
        switch state {
        case .closed: nil
        case .presenting(let info): info
        case .waitingForOutput(let info), .away(let info), .otherMaster(let info): info
        }
    }

    /// The state as the status file names it.
    var displayState: KioskCore.DisplayState {
        switch state {
        case .closed: .none
        case .waitingForOutput: .waitingForOutput
        case .presenting: .presenting
        case .away: .away
        case .otherMaster: .otherMaster
        }
    }

    /// A display was opened, its output connected or not.
    mutating func opened(_ info: DisplayInfo) -> [Action] {
        retryAt = nil
        state = info.outputConnected ? .presenting(info) : .waitingForOutput(info)
        // A framebuffer that yields to KMS keeps listening for the card that replaces it.
        return [.watchHotplug(info.yieldsToKMS)]
    }

    /// No display could be opened (`message` says why, nil when the shell has said it already).
    mutating func unavailable(message: String?) -> [Action] {
        state = .closed
        var actions: [Action] = []
        if let message { actions.append(.log(.warning, "display: \(message); waiting for a display to appear")) }
        actions.append(.watchHotplug(true))
        return actions
    }

    /// A DRM or framebuffer device appeared at `t`: with no display, one is opened shortly.
    mutating func hotplug(at t: Double) {
        if state == .closed && retryAt == nil { retryAt = t + Self.hotplugDelay }
    }

    /// A KMS output is connected (`reason`): a framebuffer taken for want of one gives way to it.
    mutating func kmsOutputAppeared(_ reason: String) -> [Action] {
        guard info?.yieldsToKMS == true else { return [] }
        state = .closed
        return [.log(.notice, "display: a KMS output appeared (\(reason)); moving from the framebuffer to KMS"), .reopenDisplay]
    }

    /// The open display changed; `info` is its state after the change.
    mutating func changed(_ change: DisplayChange, _ info: DisplayInfo) -> [Action] {
        switch change {
        case .connectorLost:
            state = .waitingForOutput(self.info)
            return [.log(.warning, "display: output disconnected; rendering stopped until it returns")]
        case .connectorReturned, .masterRegained:
            detail = nil
            let resized = info.width != self.info?.width || info.height != self.info?.height
            state = .presenting(info)
            let back = Action.log(.notice, "display: output back (\(info.width)x\(info.height)); redrawing")
            return resized ? [back, .relayout] : [back]
        case .masterFree:
            detail = nil
            state = .closed
            return [.log(.notice, "display: the program that held the screen let it go; opening it again"), .reopenDisplay]
        case .masterLost:
            // Raspberry Pi OS with the desktop: its compositor is DRM master on the active VT and
            // stays so; the service is "active" and the screen never shows us. Said once a holder.
            let holder = info.screenHolder.map { $0.isEmpty ? "another program" : $0 } ?? "another program"
            let said = "\(holder) holds the screen (DRM master)"
            var actions: [Action] = []
            if detail != said {
                actions.append(.log(.warning, "display: \(said); waiting for it to let go. A desktop image? Use Raspberry Pi OS Lite, "
                    + "or systemctl set-default multi-user.target and reboot"))
            }
            detail = said
            state = .otherMaster(self.info)
            return actions
        }
    }

    /// Our VT was switched away: the display is released until it says it is ours again.
    mutating func vtReleased() {
        if state != .closed { state = .away(info) }
    }

    /// The clock reached `t`: a hotplug's open may be due.
    mutating func timer(at t: Double) -> [Action] {
        guard let due = retryAt, due <= t else { return [] }
        retryAt = nil
        return state == .closed ? [.openDisplay] : []
    }

    /// A new configuration: a display chosen otherwise is opened again, whatever state it is in.
    func reconfigured(from old: Config, to new: Config) -> [Action] {
        guard old.displayBackend != new.displayBackend || old.displayDevice != new.displayDevice
            || old.connector != new.connector || old.mode != new.mode || old.maxModeSize != new.maxModeSize else { return [] }
        return [.log(.notice, "reload: [display] changed; reopening the display"), .reopenDisplay]
    }
}
