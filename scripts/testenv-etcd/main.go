// Command etcd is the test control plane's etcd: a single member started through
// go.etcd.io/etcd/server/v3/embed (etcd's own main module carries replace directives, so it cannot
// be built as a dependency). scripts/testenv builds it in a scratch module and runs it on 127.0.0.1.
// It takes a few of etcd's own flags, with etcd's names.
package main

import (
	"flag"
	"log"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

func urls(flagName, value string) []url.URL {
	u, err := url.Parse(value)
	if err != nil {
		log.Fatalf("--%s: %v", flagName, err)
	}
	return []url.URL{*u}
}

func main() {
	dataDir := flag.String("data-dir", "", "directory for the member's data")
	listenClient := flag.String("listen-client-urls", "http://127.0.0.1:2379", "URL to serve clients on")
	advertiseClient := flag.String("advertise-client-urls", "", "client URL to advertise (default: --listen-client-urls)")
	listenPeer := flag.String("listen-peer-urls", "http://127.0.0.1:2380", "URL to serve peers on")
	advertisePeer := flag.String("initial-advertise-peer-urls", "", "peer URL to advertise (default: --listen-peer-urls)")
	noFsync := flag.Bool("unsafe-no-fsync", false, "do not fsync (tests only: data may be lost on a crash)")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()
	if *dataDir == "" {
		log.Fatal("--data-dir is required")
	}
	if *advertiseClient == "" {
		advertiseClient = listenClient
	}
	if *advertisePeer == "" {
		advertisePeer = listenPeer
	}

	cfg := embed.NewConfig()
	cfg.Name = "bosun-testenv"
	cfg.Dir = *dataDir
	cfg.ListenClientUrls = urls("listen-client-urls", *listenClient)
	cfg.AdvertiseClientUrls = urls("advertise-client-urls", *advertiseClient)
	cfg.ListenPeerUrls = urls("listen-peer-urls", *listenPeer)
	cfg.AdvertisePeerUrls = urls("initial-advertise-peer-urls", *advertisePeer)
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = *noFsync
	cfg.LogLevel = *logLevel

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatalf("starting etcd: %v", err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Server.Stop()
		log.Fatal("etcd did not become ready within 60s")
	}
	log.Printf("etcd ready, serving clients on %s", *listenClient)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	select {
	case sig := <-stop:
		log.Printf("etcd: %v, stopping", sig)
	case err := <-e.Err():
		log.Fatalf("etcd: %v", err)
	}
}
