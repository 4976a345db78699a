import Foundation

/// How many file descriptors this process has open (Linux `/proc/self/fd`; -1 where it cannot be read).
public func openFileDescriptors() -> Int {
  (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// ``openFileDescriptors()`` as a baseline for a leak check. The process's first `Task.sleep` opens a libdispatch
/// timer descriptor that stays open; this sleeps once first, so that a check whose waits sleep for the first time in
/// its process does not count that descriptor as a leak.
public func descriptorBaseline() async -> Int {
  try? await Task.sleep(for: .milliseconds(1))
  return openFileDescriptors()
}
