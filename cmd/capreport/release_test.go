package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/capreport/capreport/internal/testutil"
)

// pinned is a `uses:` of another owner's action: a full commit SHA, with
// the version it is in a comment.
var pinned = regexp.MustCompile(`^\s*-?\s*uses:\s*([\w.-]+/[\w./-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+\s*$`)

// TestActionsPinnedBySHA holds action.yml, every workflow a team copies
// and the repository's own (.github/workflows: CI and the release) to
// pinned third-party actions (a tag can be moved; a SHA cannot). Only
// capreport's own action is referenced by its major tag, which the
// release workflow moves.
func TestActionsPinnedBySHA(t *testing.T) {
	root := testutil.RepoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "workflows", "*.yml"))
	own, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if len(files) == 0 || len(own) < 2 {
		t.Fatalf("workflows: docs %v, .github %v", files, own)
	}
	files = append(append(files, own...), filepath.Join(root, "action.yml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if !strings.Contains(line, "uses:") || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			if strings.Contains(line, "uses: capreport/capreport@") {
				continue
			}
			if !pinned.MatchString(line) {
				t.Errorf("%s:%d: %q is not pinned to a commit SHA with its version in a comment", filepath.Base(f), i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestGoReleaserConfig keeps .goreleaser.yaml and the action's install
// step in step: the archive and checksum names the script downloads, the
// platforms it maps runners to, and the version the binary reports; and
// the container image the README documents (ko: the same build, both
// Linux platforms, the repository and tags `docker run` names).
func TestGoReleaserConfig(t *testing.T) {
	root := testutil.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `json:"version"`
		Builds  []struct {
			ID      string   `json:"id"`
			Main    string   `json:"main"`
			Ldflags []string `json:"ldflags"`
			Goos    []string `json:"goos"`
			Goarch  []string `json:"goarch"`
		} `json:"builds"`
		Archives []struct {
			NameTemplate    string   `json:"name_template"`
			Formats         []string `json:"formats"`
			FormatOverrides []struct {
				Goos    string   `json:"goos"`
				Formats []string `json:"formats"`
			} `json:"format_overrides"`
		} `json:"archives"`
		Checksum struct {
			NameTemplate string `json:"name_template"`
			Algorithm    string `json:"algorithm"`
		} `json:"checksum"`
		Sboms []map[string]any `json:"sboms"`
		Kos   []struct {
			Build        string   `json:"build"`
			Main         string   `json:"main"`
			BaseImage    string   `json:"base_image"`
			Repositories []string `json:"repositories"`
			Platforms    []string `json:"platforms"`
			Tags         []string `json:"tags"`
			Bare         bool     `json:"bare"`
		} `json:"kos"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "action-install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(script)
	b, a := cfg.Builds[0], cfg.Archives[0]
	switch {
	case cfg.Version != 2 || b.Main != "./cmd/capreport" || len(cfg.Sboms) == 0:
		t.Errorf("want GoReleaser v2 building ./cmd/capreport with SBOMs: %+v", cfg)
	case !slices.Equal(b.Goos, []string{"linux", "darwin", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}):
		t.Errorf("platforms %v %v", b.Goos, b.Goarch)
	case !strings.Contains(strings.Join(b.Ldflags, " "), "-X main.version={{ .Tag }}"):
		t.Errorf("the binary must report its tag: ldflags %v", b.Ldflags)
	case a.NameTemplate != "capreport_{{ .Version }}_{{ .Os }}_{{ .Arch }}" || !strings.Contains(s, `archive="capreport_${version#v}_${os}_${arch}.${ext}"`):
		t.Errorf("archive names differ: goreleaser %q", a.NameTemplate)
	case !slices.Equal(a.Formats, []string{"tar.gz"}) || len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" || a.FormatOverrides[0].Formats[0] != "zip":
		t.Errorf("formats %v %+v, the script expects tar.gz and zip on windows", a.Formats, a.FormatOverrides)
	case cfg.Checksum.NameTemplate != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" || !strings.Contains(s, `"$base/checksums.txt"`):
		t.Errorf("checksums %+v", cfg.Checksum)
	}
	if len(cfg.Kos) != 1 {
		t.Fatalf("want one ko image, got %d", len(cfg.Kos))
	}
	switch k := cfg.Kos[0]; {
	case k.Build != b.ID || k.Main != b.Main:
		t.Errorf("the image builds %q (%s), the release binaries %q (%s)", k.Build, k.Main, b.ID, b.Main)
	case !slices.Equal(k.Platforms, []string{"linux/amd64", "linux/arm64"}):
		t.Errorf("image platforms %v", k.Platforms)
	case !slices.Equal(k.Repositories, []string{"ghcr.io/capreport/capreport"}) || !k.Bare:
		t.Errorf("the image must be ghcr.io/capreport/capreport itself (bare): %v bare=%v", k.Repositories, k.Bare)
	case !slices.Equal(k.Tags, []string{"{{ .Version }}", "latest"}):
		t.Errorf("image tags %v, the README names the version without its v", k.Tags)
	case k.BaseImage == "":
		t.Error("no base image: GoReleaser's default would be used silently")
	}
	for _, m := range []string{"Linux) os=linux", "macOS) os=darwin", "Windows) os=windows", "X64) arch=amd64", "ARM64) arch=arm64"} {
		if !strings.Contains(s, m) {
			t.Errorf("the install script lacks the runner mapping %q", m)
		}
	}
}
