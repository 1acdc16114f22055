import COpenSSL

/// Facts about the OpenSSL the process is linked against.
public enum TLSLibrary {
    /// OpenSSL's own version line, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    public static var versionDescription: String {
        String(cString: OpenSSL_version(Int32(OPENSSL_VERSION)))
    }
}
