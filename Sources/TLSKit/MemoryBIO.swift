import COpenSSL

/// An OpenSSL memory BIO, freed on deinit: moves PEM text in and out of OpenSSL without files.
final class MemoryBIO {
    let bio: OpaquePointer

    /// An empty BIO to write into.
    init() {
        guard let bio = BIO_new(BIO_s_mem()) else { fatalError("OpenSSL could not allocate a memory BIO") }
        self.bio = bio
    }

    /// A BIO holding a copy of `text`, ready to be read.
    convenience init(text: String) {
        self.init()
        var bytes = Array(text.utf8)
        if !bytes.isEmpty {
            _ = BIO_write(bio, &bytes, Int32(clamping: bytes.count))
        }
    }

    deinit {
        BIO_free(bio)
    }

    /// Everything written so far, as UTF-8 text.
    var text: String {
        var pointer: UnsafeMutablePointer<CChar>?
        let length = shim_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// Runs an OpenSSL writer into a fresh BIO and returns what it wrote.
    static func capture(_ writer: (OpaquePointer) -> Int32) -> String {
        let sink = MemoryBIO()
        _ = writer(sink.bio)
        return sink.text
    }
}
