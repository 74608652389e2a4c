// Times Go's crypto/rsa GenerateKey (what helm's genCA and genPrivateKey run): BITS N prints
// one line per key, "go BITS MILLISECONDS", for scripts/bench/rsa-keygen.sh.
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	bits, _ := strconv.Atoi(os.Args[1])
	n, _ := strconv.Atoi(os.Args[2])
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := rsa.GenerateKey(rand.Reader, bits); err != nil {
			panic(err)
		}
		fmt.Printf("go %d %.3f\n", bits, float64(time.Since(start).Nanoseconds())/1e6)
	}
}
