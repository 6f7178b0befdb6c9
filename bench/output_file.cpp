#include "crbench/bench/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "crbench/cases/params.hpp"

namespace crbench {

namespace fs = std::filesystem;

namespace {

std::string message_of(int error) {
  return error != 0 ? std::error_code(error, std::generic_category()).message()
                    : std::string("a full disk or device, or an unwritable folder");
}

constexpr std::string_view kPartial = ".partial-";

// mkstemp's six letters or digits.
bool template_letters(std::string_view text) {
  return text.size() == 6 && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0;
         });
}

// The writer's process id in a temporary's name NAME.partial-<pid>-XXXXXX; 0 for the form of
// earlier versions, NAME.partial-XXXXXX; -1 for any other name (never one of ours: a user's
// "notes.partial-draft" is left alone).
long writer_of(const std::string& name) {
  const auto at = name.rfind(kPartial);
  if (at == std::string::npos) return -1;
  const std::string_view rest = std::string_view(name).substr(at + kPartial.size());
  if (template_letters(rest)) return 0;
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash > 10 ||
      !template_letters(rest.substr(dash + 1))) {
    return -1;
  }
  long pid = 0;
  for (const char c : rest.substr(0, dash)) {
    if (c < '0' || c > '9') return -1;
    pid = 10 * pid + (c - '0');
  }
  return pid > 0 ? pid : -1;
}

bool stale(const fs::directory_entry& entry) {
  std::error_code error;
  if (!entry.is_regular_file(error) || entry.is_symlink(error)) return false;
  const long pid = writer_of(entry.path().filename().string());
  if (pid < 0) return false;
  if (pid == 0) return true;
  if (pid == static_cast<long>(::getpid())) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Only PATH's own leftovers: FOLDER/NAME.partial-*.
void remove_stale_partials_of(const fs::path& path) {
  const std::string prefix = path.filename().string() + std::string(kPartial);
  std::error_code error;
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().filename().string().rfind(prefix, 0) != 0) continue;
    std::error_code ignored;
    if (stale(*it)) fs::remove(it->path(), ignored);
  }
}

}  // namespace

unsigned new_file_mode() {
  static const unsigned mode = [] {
    // /proc/self/status states the umask without changing it (umask(2) can only read it by
    // setting it, which would race with files other threads create).
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Umask:", 0) == 0) {
        return 0666u & ~static_cast<unsigned>(std::strtoul(line.c_str() + 6, nullptr, 8));
      }
    }
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return 0666u & ~static_cast<unsigned>(mask);
  }();
  return mode;
}

OutputFile::OutputFile(const fs::path& path, std::string option)
    : path_(path), target_(path), option_(std::move(option)) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail("it is a folder");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device, a FIFO, a socket or a terminal: written through, never replaced.
    through_ = true;
    stream_.open(path, std::ios::binary | std::ios::out);
    if (!stream_) fail(message_of(errno));
    return;
  }
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // The link stays; the regular file it names (or will name) is replaced.
    std::error_code error;
    target_ = fs::weakly_canonical(path, error);
    if (error) fail(error.message());
  }
  remove_stale_partials_of(target_);
  const unsigned mode = exists ? static_cast<unsigned>(st.st_mode & 07777) : new_file_mode();
  std::string name =
      target_.string() + std::string(kPartial) + std::to_string(::getpid()) + "-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail(message_of(errno));
  // mkstemp makes 0600; the result takes the umask's mode, or the replaced file's.
  const bool moded = ::fchmod(fd, static_cast<mode_t>(mode)) == 0;
  const int chmod_errno = errno;
  ::close(fd);
  partial_ = name;
  if (!moded) fail(message_of(chmod_errno));
  stream_.open(partial_, std::ios::binary | std::ios::trunc);
  if (!stream_) fail(message_of(errno));
}

OutputFile::~OutputFile() {
  if (done_) return;
  stream_.close();
  std::error_code ignored;
  if (!partial_.empty()) fs::remove(partial_, ignored);
}

void OutputFile::fail(const std::string& why) {
  done_ = true;
  stream_.close();
  std::error_code ignored;
  if (!partial_.empty()) fs::remove(partial_, ignored);
  throw OutputError(option_ + ": cannot write '" + path_.string() + "' (" + why + ")" +
                    (through_ ? std::string() : "; the previous file, if any, is left as it was"));
}

void OutputFile::commit() {
  errno = 0;
  stream_.flush();
  const int flush_errno = errno;
  const bool written = static_cast<bool>(stream_);
  stream_.close();
  if (!written || !stream_) fail(message_of(flush_errno));
  if (!partial_.empty()) {
    std::error_code error;
    fs::rename(partial_, target_, error);
    if (error) fail(error.message());
  }
  done_ = true;
}

void write_output(const fs::path& path, std::string_view content, const std::string& option) {
  OutputFile file(path, option);
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  file.commit();
}

void remove_stale_partials(const fs::path& folder, bool recursive) {
  std::error_code error;
  std::vector<fs::path> gone;
  const auto visit = [&](const fs::directory_entry& entry) {
    if (entry.path().filename().string().find(kPartial) != std::string::npos && stale(entry)) {
      gone.push_back(entry.path());
    }
  };
  if (recursive) {
    // The folder and its subfolders (a study's trajectories/), no deeper: an --out that names a
    // large tree is not walked.
    for (fs::recursive_directory_iterator
             it(folder, fs::directory_options::skip_permission_denied, error),
         end;
         !error && it != end; it.increment(error)) {
      if (it.depth() >= 1) it.disable_recursion_pending();
      visit(*it);
    }
  } else {
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
      visit(*it);
    }
  }
  for (const auto& path : gone) fs::remove(path, error);
}

}  // namespace crbench
