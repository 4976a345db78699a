// `Redactor` lives in MalibuTransport, where the cassettes of MalibuMocking redact with the same rules as the logs;
// re-exported so that `import MalibuLogging` keeps naming it.
@_exported public import struct MalibuTransport.Redactor
