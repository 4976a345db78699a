import Foundation

/// The Public Suffix List (<https://publicsuffix.org>): the names under which anyone can register a domain (`com`,
/// `co.uk`, `github.io`, `herokuapp.com`), so that a cookie for one of them would reach every site below it.
///
/// Rules are matched as the list's own algorithm says: a normal rule (`co.uk`), a wildcard (`*.ck`: every name one
/// label below `ck`) and an exception (`!www.ck`: not a suffix although a wildcard covers it); with no rule, a single
/// label (`localhost`, `com`) is a suffix (the implicit `*` rule). Both the ICANN and the private sections count.
/// Rules are compared as written in the list, lowercased; hosts in punycode (`xn--…`) match only the list's ASCII
/// rules, so an internationalised suffix written in Unicode in the list is not recognised in its `xn--` form.
struct PublicSuffixList: Sendable {
  /// Where Debian, Ubuntu and Fedora install the list (the `publicsuffix` package): kept current by the system's
  /// package updates, read once per process.
  static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

  /// The largest list file read (the real one is about 250 KB).
  static let maximumSize = 8 << 20

  /// The system's list, or `nil` where the platform ships none (Apple platforms, a Linux without the package).
  static let system: PublicSuffixList? = load(path: systemPath)

  private var rules: Set<String> = []
  /// The `X` of every `*.X` rule.
  private var wildcards: Set<String> = []
  /// The `X` of every `!X` rule.
  private var exceptions: Set<String> = []

  /// How many rules were read.
  var count: Int { rules.count + wildcards.count + exceptions.count }

  /// Parses the list's text: one rule per line, the first whitespace-delimited word; `//` comments and blank lines
  /// skipped.
  init(text: String) {
    for line in text.split(whereSeparator: \.isNewline) {
      guard let word = line.split(whereSeparator: \.isWhitespace).first, !word.hasPrefix("//") else { continue }
      let rule = word.lowercased()
      if rule.hasPrefix("!") {
        exceptions.insert(String(rule.dropFirst()))
      } else if rule.hasPrefix("*.") {
        wildcards.insert(String(rule.dropFirst(2)))
      } else if !rule.isEmpty {
        rules.insert(rule)
      }
    }
  }

  /// Reads a list file without following a final symbolic link or blocking on a FIFO (a link to the file, as
  /// `effective_tld_names.dat` is, is resolved first); `nil` when it is missing, unreadable or holds no rule.
  static func load(path: String) -> PublicSuffixList? {
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath()
    guard let (data, _) = try? StoreFile.readRegularFile(resolved, limit: maximumSize) else { return nil }
    let list = PublicSuffixList(text: String(decoding: data, as: UTF8.self))
    return list.count > 0 ? list : nil
  }

  /// Whether a domain (lowercased, no leading or trailing dot) is a public suffix.
  func isPublicSuffix(_ domain: String) -> Bool {
    if exceptions.contains(domain) { return false }
    if rules.contains(domain) { return true }
    guard let dot = domain.firstIndex(of: ".") else { return true }  // the implicit `*` rule
    return wildcards.contains(String(domain[domain.index(after: dot)...]))
  }
}
