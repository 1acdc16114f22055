import FaultEngine
import Testing

struct GlobTests {
    @Test(arguments: [
        ("/uploads/*", "/uploads/abc", true), ("/uploads/*", "/uploads/", true), ("/uploads/*", "/upload", false),
        ("*", "", true), ("*", "/a/b/c", true), ("/a/*/c", "/a/b/x/c", true), ("/a/*/c", "/a/b/x/d", false),
        ("/files/?", "/files/1", true), ("/files/?", "/files/12", false), ("/files/?", "/files/", false),
        ("Bearer *", "Bearer abc", true), ("Bearer *", "bearer abc", false), ("*.bin", "x.bin.bin", true),
        ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXcYYb", false), ("", "", true), ("", "x", false),
        ("exact", "exact", true), ("exact", "exactly", false), ("**?", "x", true), ("**?", "", false),
    ])
    func matchesWholeText(_ pattern: String, _ text: String, _ expected: Bool) {
        #expect(Glob(pattern).matches(text) == expected)
    }
}
