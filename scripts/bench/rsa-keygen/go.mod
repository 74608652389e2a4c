module bosun.dev/bench/rsakeygen

go 1.25
