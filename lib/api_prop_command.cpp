// The property catalogue through the `shlo` command: `shlo prop --json` in a child process,
// its table read back as a PropResult. The one implementation of that path: the shared
// library's prop() (its objects cannot hold RapidCheck, see api_prop.cpp) and the Python
// module's prop() both come here.
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "lib/api_internal.hpp"

namespace shlo_oracle {

using detail::bad_input;
using detail::run_error;

namespace {

struct ChildOutput {
  int status = 0;  // as waitpid gives it
  std::string out, err;
};

// Runs argv[0] (a path, or a name looked up on PATH) with its stdout and stderr captured.
// Throws std::runtime_error when it cannot start.
ChildOutput run_child(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // posix_spawnp rather than fork: the caller may have threads (Python's, OpenMP's pool).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) posix_spawn_file_actions_addclose(&actions, fd);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawned != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(spawned));
  }
  // Both pipes at once: a child that fills one while we wait on the other would never end.
  ChildOutput result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_pipes = 2;
  char buffer[4096];
  while (open_pipes > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[k]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_pipes;
      }
    }
  }
  for (const auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Expected<PropResult> prop_with_command(const std::string& command, double seconds, const std::vector<std::string>& only,
                                       std::uint64_t seed, const std::string& corpus) {
  if (!(seconds > 0)) return bad_input("prop: the time budget must be positive, got " + std::to_string(seconds));
  std::vector<std::string> argv = {command, "prop", "--time", std::to_string(seconds), "--seed", std::to_string(seed),
                                   "--corpus", corpus, "--json"};
  for (const auto& o : only) {
    argv.push_back("--only");
    argv.push_back(o);
  }
  ChildOutput child;
  try {
    child = run_child(argv);
  } catch (const std::exception& e) {
    return run_error(std::string("prop: ") + e.what());
  }
  const std::string err = trimmed(child.err);
  if (WIFSIGNALED(child.status))
    return run_error(command + " prop: killed by signal " + std::to_string(WTERMSIG(child.status)) + (err.empty() ? "" : ": " + err));
  const int code = WEXITSTATUS(child.status);
  if (code == 2) {  // an unknown property, say: the command's message, as the static library words it
    const std::string prefix = "shlo: ";
    return bad_input(err.empty() ? command + " prop: bad input (exit 2)" : err.rfind(prefix, 0) == 0 ? err.substr(prefix.size()) : err);
  }
  if (code != 0 && code != 1)  // 1: a property failed, and the table says which
    return run_error(command + " prop: exit " + std::to_string(code) + (err.empty() ? "" : ": " + err));
  try {
    const auto j = nlohmann::json::parse(child.out);
    PropResult result;
    result.failed = j.at("failed").get<int>();
    for (const auto& row : j.at("properties"))
      result.rows.push_back({row.at("property").get<std::string>(), row.at("runs").get<int>(), row.at("passed").get<int>(),
                             row.at("failed").get<int>(), row.at("discarded").get<std::int64_t>(), row.at("seconds").get<double>(),
                             row.value("saved_to", std::string())});
    return result;
  } catch (const std::exception& e) {
    return run_error(command + " prop --json: unreadable output (" + e.what() + ")" + (err.empty() ? "" : ": " + err));
  }
}

}  // namespace shlo_oracle
