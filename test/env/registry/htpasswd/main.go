// Command htpasswd prints one htpasswd line, USER:BCRYPT-HASH, for the test registry's
// account: the registry accepts bcrypt hashes only. It hashes at bcrypt's lowest cost: the
// registry checks the password on every request, and at the default cost each check took about
// 85 ms of the machine's two cores, so every registry figure measured the test registry's
// hashing rather than the control plane (ECR answers a request in a few milliseconds). The
// account and its password are made fresh for each run and never leave the machine.
package main

import (
	"fmt"
	"os"

	"golang.org/x/crypto/bcrypt"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: htpasswd USER PASSWORD")
		os.Exit(2)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(os.Args[2]), bcrypt.MinCost)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s:%s\n", os.Args[1], hash)
}
