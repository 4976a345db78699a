// bench-client-ahc: the async-http-client contender (`ahc`), with bench-client's command line and output.

import BenchSupport

benchMain { options in
  options.contender == "ahc" ? AHCClient(options, decompression: options.workload == "gzip-decode") : nil
}
