import Codecs
import PhotoCore
import Recipe

/// Maps any error a file's work throws to its exit status and one-line message.
///
/// The code that found the problem wrote the message; this only chooses the status.
enum ErrorReport {
  static func describe(_ error: any Error) -> (status: Int32, message: String) {
    switch error {
    case let e as StoreError: (e.status, e.description)
    case let e as CodecError: (ExitStatus.dataError, e.description)
    case let e as FilterError: (ExitStatus.dataError, e.description)
    case let e as CascadeLoadError: (e.status, e.description)
    case let e as UsageError: (ExitStatus.usage, e.description)
    case let e as FileProblem: (e.status, e.description)
    default: (ExitStatus.dataError, "\(error)")
    }
  }
}
