package pipeline

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// gitRemoteURLs reads the remote URLs of the git repository at root from
// its config file (a worktree's .git file points at its gitdir, whose
// commondir holds the config). No git binary is needed, and nothing
// outside the repository's own .git is read.
func gitRemoteURLs(root string) []string {
	gitDir := filepath.Join(root, ".git")
	st, err := os.Stat(gitDir)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		data, err := os.ReadFile(gitDir)
		if err != nil {
			return nil
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return nil
		}
		gitDir = strings.TrimSpace(p)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(root, gitDir)
		}
		if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitDir, common)
			}
			gitDir = common
		}
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil || len(data) > 1<<20 {
		return nil
	}
	return remoteURLs(data)
}

// remoteURLs picks the url keys of [remote "..."] sections of a git config.
func remoteURLs(data []byte) []string {
	var urls []string
	inRemote := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inRemote = strings.HasPrefix(line, "[remote ")
			continue
		}
		if !inRemote {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "url") {
			urls = append(urls, strings.TrimSpace(v))
		}
	}
	return urls
}
