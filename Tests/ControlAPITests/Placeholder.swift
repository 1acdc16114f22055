import Testing

struct Placeholder {
    @Test func placeholder() {}
}
