import Testing

struct PlaceholderTests {
    @Test func placeholder() {}
}
