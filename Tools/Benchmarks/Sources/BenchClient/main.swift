// bench-client: one measurement per process, so that each figure and each peak RSS belongs to one contender.
//
//   bench-client <contender> <workload> --base URL [--requests N] [--concurrency N] [--bytes N] [--file PATH]
//                [--out PATH]
//
// Prints one JSON line (see BenchSupport/Report.swift). Contenders here: malibu-curl, malibu-urlsession,
// facade-curl, facade-urlsession, urlsession, facade-curl-data (api-mix: the facade with toData(), no decoding),
// facade-curl-foundation (api-mix: the facade decoding with Foundation's JSONDecoder, not its default),
// malibu-curl-loop and facade-curl-loop (the workload runs on the
// transport's loop thread, CurlTransport.taskExecutor), and mock / facade-mock (MockTransport: the facade's CPU alone; the
// json-seq rows, and profiling); async-http-client is bench-client-ahc, a binary of its own so that
// neither side's peak RSS carries the other's code (SwiftNIO, BoringSSL). Workloads: get-seq, get-concurrent,
// download-collect, download-stream, download-file, upload-file, gzip-decode, json-seq (mock contenders: GET +
// validate + decode of a 1 KiB JSON board), api-mix and fan-out (--plan; see the README's "The realistic rows").
// The runner is Scripts/bench.py.

import BenchSupport

benchMain { options in
  switch options.contender {
  case "malibu-curl": TransportClient.curl(options)
  case "malibu-curl-loop": TransportClient.curl(options, onLoop: true)
  case "malibu-urlsession": TransportClient.urlSession(options)
  case "facade-curl": FacadeClient(transport: .curl(options), base: options.base)
  case "facade-curl-loop": FacadeClient(transport: .curl(options, onLoop: true), base: options.base)
  case "facade-curl-data":
    {
      var client = FacadeClient(transport: .curl(options), base: options.base)
      client.decodes = false
      return client
    }()
  case "facade-curl-foundation":
    {
      var client = FacadeClient(transport: .curl(options), base: options.base)
      client.decodesWithFoundation = true
      return client
    }()
  case "facade-urlsession": FacadeClient(transport: .urlSession(options), base: options.base)
  case "urlsession": URLSessionClient(options)
  case "mock": TransportClient.mock(options)
  case "facade-mock": FacadeClient(transport: .mock(options), base: options.base)
  default: nil
  }
}
