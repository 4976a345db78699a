import Foundation
import MalibuStorage
import SurfCore
import Testing

@Suite struct SessionTests {
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("surf-session-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test(arguments: [
    (["XDG_CONFIG_HOME": "/x/config", "HOME": "/h"], "/x/config/surf"),
    (["HOME": "/h"], "/h/.config/surf"),
    (["XDG_CONFIG_HOME": "relative", "HOME": "/h"], "/h/.config/surf"),  // the spec: an absolute path, else ignored
  ])
  func configDirectory(_ environment: [String: String], _ path: String) {
    #expect(ConfigDirectory.url(environment: environment).path == path)
  }

  @Test(arguments: [
    ("beach", "http://127.0.0.1:8080/a", "/c/sessions/127.0.0.1_8080/beach.json"),
    ("beach", "https://api.example.org/", "/c/sessions/api.example.org/beach.json"),
    ("/tmp/own.json", "http://x.example/", "/tmp/own.json"),
  ])
  func sessionFiles(_ name: String, _ url: String, _ path: String) throws {
    let file = try Session.fileURL(name: name, for: URL(string: url)!, configDirectory: URL(fileURLWithPath: "/c"))
    #expect(file.path == path)
  }

  @Test(arguments: ["", ".", ".."])
  func rejectsNamesThatAreNotNames(_ name: String) {
    #expect(throws: SurfError.self) {
      _ = try Session.fileURL(
        name: name,
        for: URL(string: "http://x.example/")!,
        configDirectory: URL(fileURLWithPath: "/c")
      )
    }
  }

  @Test func keepsCookiesAndAuthInAPrivateFile() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("sessions/host/beach.json")
    var session = try Session(fileURL: file)
    #expect(session.auth == nil && session.jar.all.isEmpty)
    session.auth = Session.Auth(type: "basic", credentials: "surfer:wave")
    _ = session.jar.store(setCookie: ["flavour=mango", "gone=1; Max-Age=0"], from: URL(string: "http://host/")!)
    try session.save()

    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect(attributes[.posixPermissions] as? Int == 0o600)
    let folder = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
    #expect(folder[.posixPermissions] as? Int == 0o700)

    let loaded = try Session(fileURL: file)
    #expect(loaded.auth == Session.Auth(type: "basic", credentials: "surfer:wave"))
    #expect(loaded.jar.cookieHeader(for: URL(string: "http://host/x")!) == "flavour=mango")
  }

  @Test func aDamagedFileIsAnError() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("broken.json")
    try Data("{not json".utf8).write(to: file)
    #expect {
      _ = try Session(fileURL: file)
    } throws: { error in
      (error as? SurfError)?.message == "the session file '\(file.path)' cannot be read"
    }
  }
}
