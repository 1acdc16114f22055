// An extension written for PhotoKit gets Foundation (URLRequest, URLError) with `import Photos`; with
// `import SquallPhotos` it gets the same, FoundationNetworking included on Linux.
@_exported import Foundation

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
