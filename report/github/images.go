package github

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// Image is one file to publish, named relative to its folder.
type Image struct {
	Name string
	Data []byte
}

// PublishedImages says where images landed: Commit is the commit that
// holds them, and URL(name) is a link that keeps working after the branch
// moves on (it names the commit, not the branch).
type PublishedImages struct {
	Commit string
	Dir    string
	server string
	owner  string
	repo   string
}

// URL is the web address of one published image; GitHub serves it to
// whoever can read the repository (a private repository's images need a
// signed-in reader).
func (p PublishedImages) URL(name string) string {
	u := strings.TrimSuffix(p.server, "/") + "/" + url.PathEscape(p.owner) + "/" + url.PathEscape(p.repo) +
		"/raw/" + p.Commit + "/" + (&url.URL{Path: path.Join(p.Dir, name)}).EscapedPath()
	return u
}

// maxImageBytes bounds one image; plots are tens of kilobytes.
const maxImageBytes = 5 << 20

// PublishImages commits images into dir on branch through the Git Data API
// (blobs, a tree on top of the branch's, a commit, a ref update), without a
// checkout. The branch is created, as an orphan, when absent. A concurrent
// run that moved the branch first makes the update not a fast-forward; the
// commit is then rebuilt on the new tip once. serverURL is the web root
// (GITHUB_SERVER_URL) the image links are built on. The token needs
// contents: write, so this is for same-repository pull requests only.
func (c *Client) PublishImages(ctx context.Context, owner, repo, branch, dir, serverURL string, images []Image) (PublishedImages, error) {
	if err := checkRepo(owner, repo); err != nil {
		return PublishedImages{}, err
	}
	if err := checkBranch(branch); err != nil {
		return PublishedImages{}, err
	}
	dir = strings.Trim(path.Clean("/"+dir), "/")
	if dir == "" {
		return PublishedImages{}, errors.New("images need a folder")
	}
	if len(images) == 0 {
		return PublishedImages{}, errors.New("no images to publish")
	}
	where := fmt.Sprintf("%s/%s@%s", owner, repo, branch)

	var entries []*gh.TreeEntry
	seen := map[string]bool{}
	for _, im := range images {
		name := path.Clean(im.Name)
		if name != im.Name || name == "." || strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") || seen[name] {
			return PublishedImages{}, fmt.Errorf("image name %q must be a unique relative path", im.Name)
		}
		seen[name] = true
		if len(im.Data) > maxImageBytes {
			return PublishedImages{}, fmt.Errorf("image %s: %d bytes, at most %d", name, len(im.Data), maxImageBytes)
		}
		blob, _, err := c.gh.Git.CreateBlob(ctx, owner, repo, &gh.Blob{
			Content: gh.String(base64.StdEncoding.EncodeToString(im.Data)), Encoding: gh.String("base64"),
		})
		if err != nil {
			return PublishedImages{}, wrap("upload image "+name+" to "+where, needContents, err)
		}
		entries = append(entries, &gh.TreeEntry{Path: gh.String(dir + "/" + name), Mode: gh.String("100644"),
			Type: gh.String("blob"), SHA: gh.String(blob.GetSHA())})
	}

	var lastErr error
	for try := 0; try < 2; try++ {
		sha, err := c.commitOnBranch(ctx, owner, repo, branch, dir, entries)
		if err == nil {
			return PublishedImages{Commit: sha, Dir: dir, server: serverURL, owner: owner, repo: repo}, nil
		}
		if !errors.Is(err, errRaced) {
			return PublishedImages{}, err
		}
		lastErr = err
	}
	return PublishedImages{}, lastErr
}

// errRaced is another writer moving the branch between read and update.
var errRaced = errors.New("the branch moved while the images were committed")

// commitOnBranch adds entries on top of branch's tip and moves the branch.
func (c *Client) commitOnBranch(ctx context.Context, owner, repo, branch, dir string, entries []*gh.TreeEntry) (string, error) {
	where := fmt.Sprintf("%s/%s@%s", owner, repo, branch)
	ref, _, err := c.gh.Git.GetRef(ctx, owner, repo, "heads/"+branch)
	var parent, baseTree string
	switch {
	case err == nil:
		parent = ref.GetObject().GetSHA()
		commit, _, err := c.gh.Git.GetCommit(ctx, owner, repo, parent)
		if err != nil {
			return "", wrap("read the tip of "+where, "contents: read", err)
		}
		baseTree = commit.GetTree().GetSHA()
	case isStatus(err, http.StatusNotFound):
		// No such branch yet: the first commit is an orphan.
	default:
		return "", wrap("read the branch "+where, "contents: read", err)
	}

	tree, _, err := c.gh.Git.CreateTree(ctx, owner, repo, baseTree, entries)
	if err != nil {
		return "", wrap("create the image tree on "+where, needContents, err)
	}
	commit := &gh.Commit{Message: gh.String("capreport: plots for " + dir), Tree: &gh.Tree{SHA: tree.SHA}}
	if parent != "" {
		commit.Parents = []*gh.Commit{{SHA: gh.String(parent)}}
	}
	made, _, err := c.gh.Git.CreateCommit(ctx, owner, repo, commit, nil)
	if err != nil {
		return "", wrap("commit the images on "+where, needContents, err)
	}
	newRef := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: made.SHA}}
	if parent == "" {
		_, _, err = c.gh.Git.CreateRef(ctx, owner, repo, newRef)
	} else {
		_, _, err = c.gh.Git.UpdateRef(ctx, owner, repo, newRef, false)
	}
	if isStatus(err, http.StatusUnprocessableEntity) {
		return "", errRaced
	}
	if err != nil {
		return "", wrap("move "+where, needContents, err)
	}
	return made.GetSHA(), nil
}

func isStatus(err error, code int) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == code
}

// checkBranch accepts the branch names git accepts that are also safe in a
// URL path segment.
func checkBranch(b string) error {
	if b == "" || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.HasSuffix(b, ".lock") || strings.Contains(b, "..") || strings.Contains(b, "//") ||
		strings.ContainsAny(b, " ~^:?*[\\@{}#%\t\n") {
		return fmt.Errorf("branch %q is not a valid branch name", b)
	}
	return nil
}
