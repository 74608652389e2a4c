module fuzz

go 1.26
