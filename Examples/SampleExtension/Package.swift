// swift-tools-version:6.0
// The seed's sample PhotoKit background upload extension, run on Linux under Squall (see README.md): a package of
// its own, as an app's would be, depending on Squall by path (an app names its git URL instead).
import PackageDescription

let package = Package(
    name: "SampleExtension",
    dependencies: [
        .package(name: "squall", path: "../..")
    ],
    targets: [
        // The extension, written against PhotoKit with only the import made conditional.
        .target(
            name: "SampleUploadExtension",
            dependencies: [.product(name: "SquallPhotos", package: "squall")]),
        // A whole `squall` whose client runs the sample: `sample-squall run Scenarios`.
        .executableTarget(
            name: "sample-squall",
            dependencies: ["SampleUploadExtension", .product(name: "SquallCLI", package: "squall")]),
        // The same with one of the sample's buggy variants, named by SAMPLE_VARIANT (the negative controls).
        .executableTarget(
            name: "buggy-squall",
            dependencies: ["SampleUploadExtension", .product(name: "SquallCLI", package: "squall")]),
    ]
)
