package pipeline

import (
	"context"
	"errors"
	"path"
	"regexp"
	"strings"

	"github.com/capreport/capreport/render"
)

// commitName is what a commit's full name looks like (SHA-1 or SHA-256);
// an earlier commit a memo names reaches git only when it is one, never
// as an option.
var commitName = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// checkoutOf is the render.Checkout of the kept worktree wt at sha, which
// only capreport writes to: git says what changed between two commits
// without reading the files. known, when not nil, is what git already said
// differs from an earlier commit (the move of the worktree asked).
func checkoutOf(ctx context.Context, git gitFunc, wt, sha string, known *rawDiff) *render.Checkout {
	return &render.Checkout{Commit: sha,
		Changes: func(since string) ([]string, bool, error) {
			if !commitName.MatchString(since) {
				return nil, false, errors.New("not a commit name")
			}
			if known != nil && known.since == since {
				return known.paths, known.plain, nil
			}
			// Submodules are listed whatever .gitmodules or the user's
			// configuration says (ignore=all would hide them).
			out, err := git(ctx, wt, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--ignore-submodules=none", since, sha)
			if err != nil {
				return nil, false, err
			}
			return parseRawDiff(out)
		},
		Plain: func() (bool, error) {
			out, err := git(ctx, wt, "ls-files", "--stage", "-z")
			if err != nil {
				return false, err
			}
			for _, entry := range strings.Split(out, "\x00") {
				if isLinkMode(strings.SplitN(entry, " ", 2)[0]) {
					return false, nil
				}
			}
			return true, nil
		}}
}

// parseRawDiff reads `git diff --raw -z --no-renames`: for each changed
// path, ":srcmode dstmode srcblob dstblob status", NUL, the path, NUL.
// plain is false when a side of a change is a symbolic link or a
// submodule, or the path is a .gitattributes or a .gitmodules.
func parseRawDiff(out string) (paths []string, plain bool, err error) {
	fields := strings.Split(out, "\x00")
	plain = true
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if !strings.HasPrefix(fields[i], ":") || len(meta) != 5 || fields[i+1] == "" {
			return nil, false, errors.New("unexpected git diff --raw output")
		}
		p := fields[i+1]
		if base := path.Base(p); isLinkMode(meta[0]) || isLinkMode(meta[1]) || base == ".gitattributes" || base == ".gitmodules" {
			plain = false
		}
		paths = append(paths, p)
	}
	if len(fields)%2 != 1 || fields[len(fields)-1] != "" {
		return nil, false, errors.New("unexpected git diff --raw output")
	}
	return paths, plain, nil
}

// isLinkMode reports whether a git file mode is a symbolic link's or a
// submodule's.
func isLinkMode(mode string) bool { return mode == "120000" || mode == "160000" }

// rawDiff is parseRawDiff's reading of the changes from commit since.
type rawDiff struct {
	since string
	paths []string
	plain bool
}
