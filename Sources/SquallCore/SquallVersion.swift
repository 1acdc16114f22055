/// Squall's own version: what `squall version` prints and what the files it writes name as their creator (HAR).
public enum SquallVersion {
    public static let current = "0.1.0"
}
