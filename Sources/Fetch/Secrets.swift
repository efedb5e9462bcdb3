// API keys. They come from systemd credentials (`LoadCredential=NAME:/path`, read from
// `$CREDENTIALS_DIRECTORY/NAME`) or from a key file only root (or the file's owner) can read. A key
// never appears in a log line, an error message, the status file or `--print` output: every text
// that leaves the fetcher goes through `Secrets.redact`.

#if canImport(Glibc)
import Glibc
import LinuxIO
#endif

/// A key; printing it prints a placeholder.
/// Why a key could not be read (never containing the key).
public struct SecretError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String
    public init(_ value: String) { self.value = value }
    public var description: String { "<key>" }
    public var debugDescription: String { "<key>" }
}

public enum Secrets {
    /// Where a provider's key comes from: `credential:NAME` (systemd), else a file path. A systemd
    /// credential named like the provider wins over `key-file`, so a unit can supply keys without
    /// the config naming them.
    public static func load(provider: String, keyFile: String?, environment: [String: String]) -> Result<Secret?, SecretError> {
        let credentials = environment["CREDENTIALS_DIRECTORY"]
        if let keyFile, keyFile.hasPrefix("credential:") {
            let name = String(keyFile.dropFirst("credential:".count))
            guard let credentials else { return .failure(SecretError("key-file = \(keyFile): no $CREDENTIALS_DIRECTORY (set LoadCredential=\(name):FILE in the unit)")) }
            return read(path: credentials + "/" + name, checkMode: false).map { Optional($0) }
        }
        if let credentials, FileSystem.isReadable(credentials + "/" + provider) {
            return read(path: credentials + "/" + provider, checkMode: false).map { Optional($0) }
        }
        guard let keyFile else { return .success(nil) }
        return read(path: keyFile, checkMode: true).map { Optional($0) }
    }

    /// The first line of the file, trimmed. A key file that group or others may read is refused: the
    /// point of a key file is that only root (or its owner) can read it.
    static func read(path: String, checkMode: Bool) -> Result<Secret, SecretError> {
        let bytes: [UInt8], mode: mode_t
        do { (bytes, mode) = try RegularFile.readWithMode(path, limit: 4096, followSymlinks: false) } catch {
            switch error {
            case .notRegularFile, .isDirectory: return .failure(SecretError("\(path): not a regular file"))
            case .tooLarge: return .failure(SecretError("\(path): larger than 4096 bytes; a key file holds one key"))
            case .system(let e) where e.rawValue == ELOOP: return .failure(SecretError("\(path): a symbolic link; name the key file itself"))
            default: return .failure(SecretError("\(path): cannot read the key: \(error)"))
            }
        }
        if checkMode && mode & 0o077 != 0 {
            return .failure(SecretError("\(path): the key file may be read by others (mode \(String(mode & 0o777, radix: 8))); chmod 600 it"))
        }
        guard !bytes.isEmpty else { return .failure(SecretError("\(path): the key file is empty")) }
        let line = bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }).first ?? []
        let key = String(decoding: line, as: UTF8.self).filter { !$0.isWhitespace }
        guard !key.isEmpty else { return .failure(SecretError("\(path): the key file is empty")) }
        return .success(Secret(key))
    }

    /// `text` with every key replaced by `<key>`: as it is, URL-encoded and percent-encoded byte for
    /// byte, in any letter case (a provider echoed `ab%2b%2fkey…` lower-cased), whatever its length;
    /// and the value of every key-like query parameter (`apikey=`, `token=`, …), so a key this
    /// process does not know of (a provider's echo of another) never leaves either.
    public static func redact(_ text: String, _ secrets: [Secret]) -> String {
        var bytes = Array(text.utf8)
        for secret in secrets where !secret.value.isEmpty {
            let fully = secret.value.utf8.map { "%" + (($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true)) }.joined()
            for form in Set([secret.value, urlEncode(secret.value), fully]) { bytes = replacingFolded(Array(form.utf8), in: bytes) }
        }
        return String(decoding: redactingParameters(bytes), as: UTF8.self)
    }

    private static func fold(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }
    private static let placeholder = Array("<key>".utf8)

    /// Every occurrence of `needle` in `text`, compared with ASCII letters folded, replaced.
    private static func replacingFolded(_ needle: [UInt8], in text: [UInt8]) -> [UInt8] {
        let n = needle.map(fold)
        guard !n.isEmpty, text.count >= n.count else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            if i + n.count <= text.count, fold(text[i]) == n[0], (0..<n.count).allSatisfy({ fold(text[i + $0]) == n[$0] }) {
                out += placeholder
                i += n.count
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return out
    }

    /// Query parameter names that carry credentials at the providers we speak to and elsewhere.
    static let keyParameters = ["apikey", "api_key", "apitoken", "api_token", "token", "access_key", "key", "secret"]

    private static func redactingParameters(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        let names = keyParameters.map { Array($0.utf8) }
        while i < text.count {
            // A name starts after `?` or `&` and ends at `=`.
            if i > 0, text[i - 1] == UInt8(ascii: "?") || text[i - 1] == UInt8(ascii: "&"),
               let name = names.first(where: { name in
                   i + name.count < text.count && text[i + name.count] == UInt8(ascii: "=")
                       && (0..<name.count).allSatisfy { fold(text[i + $0]) == name[$0] }
               }) {
                out += text[i...(i + name.count)]
                i += name.count + 1
                let start = i
                while i < text.count, !" &\"'#\n\r\t<>".utf8.contains(text[i]) { i += 1 }
                if i > start { out += placeholder }
                continue
            }
            out.append(text[i])
            i += 1
        }
        return out
    }
}
