import Foundation
import UploadClient

/// An asset of the library: under Squall, a file the host was given (its path is its local identifier).
public final class PHAsset: Sendable {
    public let localIdentifier: String

    init(_ localIdentifier: String) {
        self.localIdentifier = localIdentifier
    }

    /// Every asset of the library, in the order they were added.
    public static func fetchAssets(with options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        let binding = PHPhotoLibrary.shared().bound("PHAsset.fetchAssets(with:)")
        let ids = (try? binding.assets.changes(since: nil).inserted) ?? []
        return PHFetchResult(ids.map(PHAsset.init))
    }

    /// The assets with these local identifiers that the library holds, in the order given.
    public static func fetchAssets(withLocalIdentifiers identifiers: [String], options: PHFetchOptions?)
        -> PHFetchResult<
            PHAsset
        >
    {
        let binding = PHPhotoLibrary.shared().bound("PHAsset.fetchAssets(withLocalIdentifiers:options:)")
        let held = Set((try? binding.assets.changes(since: nil).inserted) ?? [])
        return PHFetchResult(identifiers.filter(held.contains).map(PHAsset.init))
    }
}

/// The data of an asset that a job uploads: under Squall, one resource per asset, its file.
public final class PHAssetResource: Sendable {
    /// The asset it belongs to.
    public let assetLocalIdentifier: String
    /// The file's name, for the server (`X-Filename`).
    public let originalFilename: String

    init(asset: String) {
        assetLocalIdentifier = asset
        originalFilename = asset.split(separator: "/").last.map(String.init) ?? asset
    }

    /// The resources of `asset` (one).
    public static func assetResources(for asset: PHAsset) -> [PHAssetResource] {
        [PHAssetResource(asset: asset.localIdentifier)]
    }

    /// The resource `job` uploads or downloads.
    public static func assetResource(forUploadJob job: PHAssetResourceUploadJob) -> PHAssetResource? {
        PHAssetResource(asset: job.assetID)
    }
}
