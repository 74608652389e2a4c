module bosun.dev/bench/gotemplate

go 1.26
