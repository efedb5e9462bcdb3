/// Log lines on stderr with the `<N>` syslog priority prefixes journald understands (the writing
/// is the shell's, `Kiosk/Log.swift`; the core only names the priority of what it asks to log).
public enum Log {
    public enum Priority: Int, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    }
}
