import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// Writes a line to standard output (results, listings: what scripts read). Flushed at once:
/// stdout is block-buffered when it is a pipe or a file (journald, CI), and a line that appears
/// only at exit is a lost line for whoever is watching.
func printLine(_ text: String) {
    print(text)
    fflush(nil)  // every output stream; `stdout` itself is not concurrency-safe to name
}

/// Creates (or empties) `path`: the "I am ready" signal scripts wait for (`--ready-file`).
func createReadyFile(_ path: String) {
    try? FileDescriptor.open(path, .writeOnly, options: [.create, .truncate]).close()
}
