module oracle

go 1.26
