// swift-tools-version:6.0
// Squall: a network-fault chaos proxy and test harness for resumable uploads (see README.md).
//
// Layers, dependencies pointing down only: a target depends on targets of its own layer or lower ones, and names
// every module it imports as a direct dependency. Tools/check-imports.py reads the `layer` lines (highest first).
//   layer tools:      squall-bench TestSupport          — benchmarks and shared test helpers (tests sit above all)
//   layer cli:        squall SquallCLI                  — maps flags to configuration, prints
//   layer harness:    Harness ServerCheck               — runs the pieces together, reads scenario files, reports
//   layer components: UploadServer UploadClient         — servers, clients and the proxy built from I/O and pure
//   layer components: ControlAPI ChaosProxy SquallPhotos
//   layer io:         SquallNet TLSKit Capture QRCodes  — sockets, OpenSSL, libpcap, libqrencode, files; the only code that
//   layer io:         UploadStore JobJournal HTTPExchange — reads clocks
//   layer pure:       SquallCore HTTPWire HTTP2Wire StructuredFields ResumableUpload UploadJobs FaultEngine
//   layer pure:       ProxyTranscript ProxyFlow Scenario ScenarioOracle ScenarioReports PacketSynthesis Exploration
//                     — no sockets, threads, clock reads or files; no Glibc, Foundation or Dispatch (HTTP2Wire
//                     uses CNghttp2: libnghttp2 does no I/O and reads no clock)
//   layer shims:      COpenSSL CPcap CSystem CQREncode CNghttp2 — .systemLibrary targets, static inline wrappers
import PackageDescription

let package = Package(
    name: "Squall",
    products: [
        .executable(name: "squall", targets: ["squall"]),
        // PhotoKit's background upload extension API over the reference client, for an app's own extension.
        .library(name: "SquallPhotos", targets: ["SquallPhotos"]),
        // The whole squall command, for an app's executable that runs it with its own extension (`Squall.main`).
        .library(name: "SquallCLI", targets: ["SquallCLI"]),
    ],
    targets: [
        // C shims: static inline wrappers for what Swift cannot import.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CSystem"),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),

        // Pure logic.
        .target(name: "SquallCore"),
        .target(name: "HTTPWire"),
        .target(name: "HTTP2Wire", dependencies: ["CNghttp2", "HTTPWire"]),
        .target(name: "StructuredFields"),
        .target(name: "ResumableUpload", dependencies: ["SquallCore", "HTTPWire", "StructuredFields"]),
        .target(name: "UploadJobs", dependencies: ["SquallCore"]),
        .target(
            name: "FaultEngine",
            dependencies: ["SquallCore", "HTTPWire", "HTTP2Wire", "StructuredFields", "ResumableUpload"]),
        .target(name: "ProxyTranscript", dependencies: ["SquallCore", "HTTPWire", "HTTP2Wire", "FaultEngine"]),
        .target(
            name: "ProxyFlow",
            dependencies: ["SquallCore", "HTTPWire", "FaultEngine", "ProxyTranscript", "ResumableUpload"]),
        .target(
            name: "Scenario",
            dependencies: ["SquallCore", "FaultEngine", "UploadJobs", "ProxyTranscript", "ResumableUpload"]),
        .target(
            name: "ScenarioOracle",
            dependencies: [
                "Scenario", "FaultEngine", "UploadJobs", "ProxyTranscript", "HTTPWire", "HTTP2Wire", "ResumableUpload",
                "SquallCore",
            ]),
        .target(name: "ScenarioReports", dependencies: ["Scenario", "SquallCore"]),
        .target(name: "PacketSynthesis"),
        .target(name: "Exploration", dependencies: ["SquallCore"]),

        // I/O.
        .target(name: "SquallNet", dependencies: ["CSystem"]),
        .target(name: "TLSKit", dependencies: ["COpenSSL", "SquallNet"]),
        .target(name: "Capture", dependencies: ["CPcap", "CSystem", "PacketSynthesis", "SquallNet"]),
        .target(name: "QRCodes", dependencies: ["CQREncode"]),
        .target(name: "UploadStore", dependencies: ["SquallCore", "SquallNet", "TLSKit"]),
        .target(name: "JobJournal", dependencies: ["UploadJobs", "SquallCore", "SquallNet"]),
        .target(name: "HTTPExchange", dependencies: ["HTTPWire", "HTTP2Wire", "SquallNet"]),

        // Components: the reference resumable-upload server and client.
        .target(
            name: "UploadServer",
            dependencies: [
                "SquallCore", "ResumableUpload", "UploadStore", "HTTPWire", "HTTPExchange", "StructuredFields",
                "SquallNet", "TLSKit",
            ]
        ),
        .target(name: "ControlAPI", dependencies: ["SquallCore", "FaultEngine", "HTTPWire"]),
        .target(
            name: "ChaosProxy",
            dependencies: [
                "ProxyFlow", "FaultEngine", "ProxyTranscript", "ControlAPI", "HTTPWire", "HTTP2Wire", "SquallCore",
                "SquallNet", "TLSKit", "Capture", "PacketSynthesis", "CSystem", "HTTPExchange",
            ]
        ),
        .target(
            name: "UploadClient",
            dependencies: [
                "ResumableUpload", "HTTPWire", "HTTPExchange", "StructuredFields", "SquallNet", "TLSKit", "UploadJobs",
                "JobJournal", "SquallCore",
            ]
        ),

        // Harness: the scenario runner, the catalog run, scenario files on disk.
        .target(
            name: "Harness",
            dependencies: [
                "SquallCore", "HTTPWire", "SquallNet", "TLSKit", "Scenario", "ScenarioOracle", "ScenarioReports",
                "ChaosProxy", "FaultEngine", "ProxyTranscript", "UploadServer", "UploadClient", "UploadJobs",
                "JobJournal", "ResumableUpload", "HTTPExchange", "Capture", "SquallPhotos", "Exploration",
            ]
        ),

        // The server checker (squall check-server): conformance and robustness cases against a live server.
        .target(
            name: "ServerCheck",
            dependencies: [
                "SquallCore", "HTTPWire", "HTTPExchange", "SquallNet", "TLSKit", "ResumableUpload", "Scenario",
                "ScenarioReports", "UploadClient",
            ]
        ),

        .target(name: "SquallPhotos", dependencies: ["UploadClient", "UploadJobs", "SquallNet"]),

        // CLI.
        .target(
            name: "SquallCLI",
            dependencies: [
                "SquallCore", "Harness", "SquallNet", "TLSKit", "Capture", "UploadServer", "UploadClient", "UploadJobs",
                "ResumableUpload", "ChaosProxy", "ControlAPI", "FaultEngine", "ProxyTranscript", "HTTPWire", "Scenario",
                "ScenarioReports", "ProxyFlow", "HTTPExchange", "ServerCheck", "SquallPhotos", "Exploration", "QRCodes",
                "CSystem",
            ]),
        .executableTarget(name: "squall", dependencies: ["SquallCLI"]),

        // Benchmarks (run by Tools/bench.sh in release mode; never part of the test suite's timing).
        .executableTarget(
            name: "squall-bench",
            dependencies: [
                "SquallCore", "HTTPWire", "HTTPExchange", "SquallNet", "TLSKit", "UploadJobs", "JobJournal",
                "UploadClient", "ChaosProxy", "FaultEngine", "ProxyFlow",
            ],
            path: "Tools/Bench"
        ),

        // Tests.
        .target(
            name: "TestSupport",
            dependencies: [
                "SquallCore", "SquallNet", "TLSKit", "HTTPWire", "HTTP2Wire", "HTTPExchange", "ControlAPI",
                "FaultEngine",
                "CSystem", "ResumableUpload", "ProxyFlow", "ProxyTranscript",
            ]
        ),
        .testTarget(name: "HTTPWireTests", dependencies: ["HTTPWire", "TestSupport"]),
        .testTarget(name: "HTTP2WireTests", dependencies: ["HTTP2Wire", "HTTPWire"]),
        .testTarget(
            name: "SquallPhotosTests",
            dependencies: [
                "SquallPhotos", "UploadClient", "UploadJobs", "UploadServer", "SquallCore", "TestSupport", "TLSKit",
                "HTTPWire", "Harness", "Scenario",
            ]),
        .testTarget(name: "PacketSynthesisTests", dependencies: ["PacketSynthesis", "TestSupport"]),
        .testTarget(
            name: "ExplorationTests",
            dependencies: ["Exploration", "SquallCore", "Scenario", "Harness", "TestSupport", "SquallNet"]),
        .testTarget(
            name: "CaptureTests",
            dependencies: [
                "Capture", "CPcap", "PacketSynthesis", "SquallNet", "TestSupport", "HTTPExchange", "HTTPWire",
            ]),
        .testTarget(name: "StructuredFieldsTests", dependencies: ["StructuredFields", "TestSupport"]),
        .testTarget(name: "SquallNetTests", dependencies: ["SquallNet", "TestSupport"]),
        .testTarget(name: "HTTPExchangeTests", dependencies: ["HTTPExchange", "HTTPWire", "SquallNet", "TestSupport"]),
        .testTarget(name: "TLSKitTests", dependencies: ["TLSKit", "SquallNet", "TestSupport"]),
        .testTarget(name: "SquallCoreTests", dependencies: ["SquallCore"]),
        .testTarget(name: "QRCodesTests", dependencies: ["QRCodes"]),
        .testTarget(name: "ResumableUploadTests", dependencies: ["ResumableUpload", "HTTPWire", "TestSupport"]),
        .testTarget(name: "UploadJobsTests", dependencies: ["UploadJobs", "TestSupport"]),
        .testTarget(name: "FaultEngineTests", dependencies: ["FaultEngine", "SquallCore", "HTTPWire", "TestSupport"]),
        .testTarget(
            name: "ProxyTranscriptTests", dependencies: ["ProxyTranscript", "FaultEngine", "HTTPWire", "SquallCore"]),
        .testTarget(name: "ControlAPITests", dependencies: ["ControlAPI", "FaultEngine", "HTTPWire", "TestSupport"]),
        .testTarget(
            name: "ProxyFlowTests",
            dependencies: ["ProxyFlow", "FaultEngine", "ProxyTranscript", "HTTPWire", "TestSupport"]
        ),
        .testTarget(
            name: "ChaosProxyTests",
            dependencies: [
                "ChaosProxy", "ProxyFlow", "ControlAPI", "FaultEngine", "ProxyTranscript", "HTTPWire", "HTTP2Wire",
                "SquallNet", "TLSKit", "UploadServer", "TestSupport",
            ]
        ),
        .testTarget(
            name: "ScenarioTests",
            dependencies: ["Scenario", "FaultEngine", "Harness", "TestSupport", "ResumableUpload", "SquallCore"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "ScenarioOracleTests",
            dependencies: [
                "ScenarioOracle", "Scenario", "FaultEngine", "UploadJobs", "ProxyTranscript", "HTTPWire", "HTTP2Wire",
            ]),
        .testTarget(
            name: "ScenarioReportsTests", dependencies: ["ScenarioReports", "Scenario", "SquallCore", "TestSupport"]),
        .testTarget(name: "JobJournalTests", dependencies: ["JobJournal", "UploadJobs", "TestSupport"]),
        .testTarget(
            name: "UploadClientTests",
            dependencies: [
                "UploadClient", "UploadServer", "ResumableUpload", "HTTPWire", "HTTP2Wire", "HTTPExchange", "SquallNet",
                "TLSKit", "UploadJobs", "JobJournal", "TestSupport", "SquallCore",
            ]
        ),
        .testTarget(name: "UploadStoreTests", dependencies: ["UploadStore", "TLSKit", "TestSupport"]),
        .testTarget(
            name: "UploadServerTests",
            dependencies: [
                "UploadServer", "ResumableUpload", "UploadStore", "HTTPWire", "HTTP2Wire", "SquallNet", "TLSKit",
                "TestSupport", "SquallCore",
            ]
        ),
        .testTarget(
            name: "HarnessTests",
            dependencies: [
                "Harness", "Scenario", "ScenarioReports", "FaultEngine", "ProxyTranscript", "HTTPWire", "TestSupport",
                "SquallCore", "SquallNet", "ResumableUpload",
            ]),
        .testTarget(
            name: "ServerCheckTests",
            dependencies: [
                "ServerCheck", "Scenario", "UploadServer", "ResumableUpload", "SquallCore", "TLSKit", "TestSupport",
            ]),
        .testTarget(
            name: "SquallCLITests",
            dependencies: [
                "SquallCLI", "UploadServer", "SquallNet", "TLSKit", "ControlAPI", "ChaosProxy", "FaultEngine",
                "TestSupport", "SquallCore", "UploadClient", "HTTPWire", "Scenario", "Exploration", "CSystem",
                "UploadJobs", "ServerCheck", "QRCodes", "ProxyTranscript",
            ]),
    ]
)
