// Command ocicheck serves an OCI registry on the loopback for
// scripts/release-check.sh, so that GoReleaser's ko pipe can build and
// push the container image the way the release does without the network
// or a docker daemon, and then reads back what was pushed.
//
//	ocicheck serve PORTFILE   serve until killed; push a stand-in base
//	                          image (BASE) and write the port to PORTFILE
//	ocicheck verify REF DIR   check the image index REF and write each
//	                          platform's entrypoint binary under DIR
//
// The stand-in base is an empty image for each of linux/amd64 and
// linux/arm64: the release's base (cgr.dev/chainguard/static) is pulled
// from its registry at release time and is not checked here.
package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// base is the stand-in base image's repository and tag.
const base = "static:latest"

// platforms are the release's (.goreleaser.yaml, kos).
var platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

func main() {
	log.SetFlags(0)
	log.SetPrefix("ocicheck: ")
	switch {
	case len(os.Args) == 3 && os.Args[1] == "serve":
		if err := serve(os.Args[2]); err != nil {
			log.Fatal(err)
		}
	case len(os.Args) == 4 && os.Args[1] == "verify":
		if err := verify(os.Args[2], os.Args[3]); err != nil {
			log.Fatal(err)
		}
	default:
		log.Fatal("usage: ocicheck serve PORTFILE | ocicheck verify REF DIR")
	}
}

func serve(portFile string) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	host := l.Addr().String()
	if err := pushBase(host); err != nil {
		return err
	}
	tmp := portFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(fmt.Sprint(l.Addr().(*net.TCPAddr).Port)), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, portFile); err != nil {
		return err
	}
	return <-served // until killed
}

// pushBase pushes an index of one empty image per platform.
func pushBase(host string) error {
	ref, err := name.ParseReference(host + "/" + base)
	if err != nil {
		return err
	}
	var idx v1.ImageIndex = empty.Index
	idx = mutate.IndexMediaType(idx, types.OCIImageIndex)
	for _, p := range platforms {
		cf := &v1.ConfigFile{OS: p.OS, Architecture: p.Architecture, RootFS: v1.RootFS{Type: "layers"}}
		img, err := mutate.ConfigFile(mutate.MediaType(empty.Image, types.OCIManifestSchema1), cf)
		if err != nil {
			return err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	return remote.WriteIndex(ref, idx)
}

// verify checks that ref is an index of the release's platforms, each an
// image whose entrypoint is a file of its layers, and writes that file to
// DIR/OS_ARCH/NAME.
func verify(ref, dir string) error {
	r, err := name.ParseReference(ref)
	if err != nil {
		return err
	}
	idx, err := remote.Index(r)
	if err != nil {
		return err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	var got []string
	for _, d := range im.Manifests {
		if d.Platform == nil || d.Platform.OS == "unknown" {
			continue // an attestation or SBOM, not an image
		}
		got = append(got, d.Platform.OS+"/"+d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return err
		}
		if cf.OS != d.Platform.OS || cf.Architecture != d.Platform.Architecture {
			return fmt.Errorf("%s: the image says %s/%s", ref, cf.OS, cf.Architecture)
		}
		if len(cf.Config.Entrypoint) != 1 {
			return fmt.Errorf("%s %s: entrypoint %q", ref, got[len(got)-1], cf.Config.Entrypoint)
		}
		entry := cf.Config.Entrypoint[0]
		out := filepath.Join(dir, cf.OS+"_"+cf.Architecture, path.Base(entry))
		if err := extract(img, strings.TrimPrefix(entry, "/"), out); err != nil {
			return fmt.Errorf("%s %s: %w", ref, got[len(got)-1], err)
		}
		fmt.Printf("%s %s: entrypoint %s, labels %v\n", ref, got[len(got)-1], entry, cf.Config.Labels)
	}
	slices.Sort(got)
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(got, want) {
		return fmt.Errorf("%s holds %v, want %v", ref, got, want)
	}
	return nil
}

// extract writes the file at name in img's flattened filesystem to out.
func extract(img v1.Image, name, out string) error {
	rc := mutate.Extract(img)
	defer func() { _ = rc.Close() }()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("no %s in the image", name)
		}
		if err != nil {
			return err
		}
		if strings.TrimPrefix(path.Clean(h.Name), "/") != name || h.Typeflag != tar.TypeReg {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			_ = f.Close()
			return err
		}
		return f.Close()
	}
}
