package action

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// maxEventBytes bounds the event payload read from GITHUB_EVENT_PATH;
// GitHub's own payloads stay far below it.
const maxEventBytes = 32 << 20

// ghEvent is the part of a GitHub Actions event payload capreport reads.
// The payload is written by GitHub, not by the pull request's code, so it
// is the trusted source of the pull request a run belongs to.
type ghEvent struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA  string `json:"sha"`
			Repo struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"head"`
		Base struct {
			Repo struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"base"`
	} `json:"pull_request"`
	WorkflowRun *struct {
		ID             int64  `json:"id"`
		HTMLURL        string `json:"html_url"`
		Event          string `json:"event"`
		HeadSHA        string `json:"head_sha"`
		HeadBranch     string `json:"head_branch"`
		HeadRepository struct {
			FullName string `json:"full_name"`
			Owner    struct {
				Login string `json:"login"`
			} `json:"owner"`
		} `json:"head_repository"`
		Repository struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	} `json:"workflow_run"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// readEvent loads GITHUB_EVENT_PATH; no variable means no event (a run
// outside Actions), which is not an error.
func readEvent(env cmdutil.LookupEnv) (*ghEvent, error) {
	path, _ := env("GITHUB_EVENT_PATH")
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH %s: %w", path, cmdutil.UnwrapPathError(err))
	}
	defer f.Close()
	b, err := readAtMost(f, maxEventBytes)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH %s: %w", path, err)
	}
	var ev ghEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH %s: not a GitHub event payload: %v", path, err)
	}
	return &ev, nil
}

// headSHA is the commit the pull request's report describes.
func (ev *ghEvent) headSHA() string {
	switch {
	case ev == nil:
		return ""
	case ev.PullRequest != nil:
		return ev.PullRequest.Head.SHA
	case ev.WorkflowRun != nil:
		return ev.WorkflowRun.HeadSHA
	}
	return ""
}

// fromFork says whether the pull request's head lives in another
// repository: its token is read-only and its code untrusted.
func (ev *ghEvent) fromFork() bool {
	switch {
	case ev == nil:
		return false
	case ev.PullRequest != nil:
		return !strings.EqualFold(ev.PullRequest.Head.Repo.FullName, ev.PullRequest.Base.Repo.FullName)
	case ev.WorkflowRun != nil:
		return !strings.EqualFold(ev.WorkflowRun.HeadRepository.FullName, ev.WorkflowRun.Repository.FullName)
	}
	return false
}

// runURL is the page of the run whose artifacts hold the full report: the
// analysing run of a workflow_run event, else this run.
func (ev *ghEvent) runURL(env cmdutil.LookupEnv, serverURL, repo string) string {
	if ev != nil && ev.WorkflowRun != nil && strings.HasPrefix(ev.WorkflowRun.HTMLURL, "https://") {
		return ev.WorkflowRun.HTMLURL
	}
	id, _ := env("GITHUB_RUN_ID")
	if id == "" || strings.Trim(id, "0123456789") != "" || repo == "" {
		return ""
	}
	return strings.TrimSuffix(serverURL, "/") + "/" + repo + "/actions/runs/" + id
}

// readAtMost reads up to n-1 bytes; n or more is an error.
func readAtMost(r io.Reader, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) == n {
		return nil, fmt.Errorf("larger than %d bytes", n-1)
	}
	return b, nil
}
