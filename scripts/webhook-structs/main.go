// Decodes webhook payloads with Gitea's own payload structs (code.gitea.io/gitea/modules/structs)
// and reports every field Gitea does not know, every value of the wrong type and every required
// field left empty. Input: one JSON object per line, {"event": "<X-Gitea-Event-Type>", "body": "<payload>"}.
// Output: one line per problem; exit status 1 when there is any.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"code.gitea.io/gitea/modules/structs"
)

var (
	userType = reflect.TypeOf(structs.User{})
	timeType = reflect.TypeOf(time.Time{})
)

// knownFields are the JSON names of a struct's fields, embedded structs flattened.
func knownFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range knownFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// unknown walks the decoded JSON beside the struct type: a key the type does not have is a field
// Gitea does not know (DisallowUnknownFields, applied at every depth). User's `username` is the
// alias Gitea's own User.MarshalJSON adds.
func unknown(t reflect.Type, data any, path string, problems *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == timeType {
			return
		}
		obj, ok := data.(map[string]any)
		if !ok {
			return
		}
		fields := knownFields(t)
		for k, v := range obj {
			ft, ok := fields[k]
			if !ok {
				if t == userType && k == "username" {
					continue
				}
				*problems = append(*problems, fmt.Sprintf("%s.%s: unknown field of %s", path, k, t.Name()))
				continue
			}
			unknown(ft, v, path+"."+k, problems)
		}
	case reflect.Slice, reflect.Array:
		if arr, ok := data.([]any); ok {
			for i, v := range arr {
				unknown(t.Elem(), v, fmt.Sprintf("%s[%d]", path, i), problems)
			}
		}
	case reflect.Map:
		if obj, ok := data.(map[string]any); ok {
			for k, v := range obj {
				unknown(t.Elem(), v, path+"."+k, problems)
			}
		}
	}
}

func required(ok bool, what string, problems *[]string) {
	if !ok {
		*problems = append(*problems, what+": required")
	}
}

// decode fills the struct for the event (types checked by encoding/json) and checks what a
// receiver needs present.
func decode(event string, body []byte, problems *[]string) any {
	var v any
	switch {
	case event == "create":
		p := &structs.CreatePayload{}
		v = p
		defer func() { required(p.Repo != nil && p.Ref != "" && p.Sha != "" && p.RefType != "" && p.Sender != nil, "create: repository, ref, sha, ref_type, sender", problems) }()
	case event == "delete":
		p := &structs.DeletePayload{}
		v = p
		defer func() { required(p.Repo != nil && p.Ref != "" && p.RefType != "" && p.Sender != nil, "delete: repository, ref, ref_type, sender", problems) }()
	case event == "push":
		p := &structs.PushPayload{}
		v = p
		defer func() { required(p.Repo != nil && p.Ref != "" && p.After != "" && p.Pusher != nil && p.Sender != nil, "push: repository, ref, after, pusher, sender", problems) }()
	case event == "status":
		p := &structs.CommitStatusPayload{}
		v = p
		defer func() { required(p.Repo != nil && p.SHA != "" && p.State != "" && p.Commit != nil && p.Sender != nil, "status: repository, sha, state, commit, sender", problems) }()
	case event == "issue_comment" || event == "pull_request_comment":
		p := &structs.IssueCommentPayload{}
		v = p
		defer func() {
			required(p.Action != "" && p.Issue != nil && p.Comment != nil && p.Repository != nil && p.Sender != nil, event+": action, issue, comment, repository, sender", problems)
			required(p.IsPull == (p.PullRequest != nil), event+": pull_request exactly when is_pull", problems)
		}()
	case strings.HasPrefix(event, "issue"):
		p := &structs.IssuePayload{}
		v = p
		defer func() { required(p.Action != "" && p.Index > 0 && p.Issue != nil && p.Repository != nil && p.Sender != nil, event+": action, number, issue, repository, sender", problems) }()
	case strings.HasPrefix(event, "pull_request"):
		p := &structs.PullRequestPayload{}
		v = p
		defer func() {
			required(p.Action != "" && p.Index > 0 && p.PullRequest != nil && p.PullRequest.Head != nil && p.PullRequest.Base != nil && p.Repository != nil && p.Sender != nil,
				event+": action, number, pull_request with head and base, repository, sender", problems)
		}()
	default:
		*problems = append(*problems, "unknown event "+event)
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		*problems = append(*problems, event+": "+err.Error())
	}
	return v
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	failed := false
	count := 0
	for in.Scan() {
		var line struct{ Event, Body string }
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			fmt.Println("bad input line:", err)
			failed = true
			continue
		}
		count++
		var problems []string
		v := decode(line.Event, []byte(line.Body), &problems)
		var raw any
		_ = json.Unmarshal([]byte(line.Body), &raw)
		if v != nil {
			unknown(reflect.TypeOf(v), raw, line.Event, &problems)
		}
		for _, p := range problems {
			fmt.Println(p)
			failed = true
		}
	}
	fmt.Printf("checked %d payloads\n", count)
	if failed {
		os.Exit(1)
	}
}
