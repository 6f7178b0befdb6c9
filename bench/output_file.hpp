// Writing an output file so that a reader never sees half of it and nothing but the file changes.
//
// What is written to depends on what the path names (after following symbolic links):
// - nothing, or a regular file: the content goes to a temporary file in the same folder
//   (PATH.partial-<pid>-XXXXXX) that is renamed over PATH once complete, so PATH is always its
//   previous version or the new one. A new file gets the mode 0666 less the umask, as any Unix
//   tool's; a file that was there keeps its mode. A symbolic link to a regular file keeps the
//   link: its target is the file replaced.
// - anything else (a character device such as a null device, a FIFO, /dev/fd/N, a link to one):
//   the content is written through it as it comes, and it stays what it was (no rename, no
//   change of type or mode).
// A write that fails (a full disk or device, an unwritable folder) is an OutputError (exit 2)
// naming the option and the path; a regular PATH keeps its previous version.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace crbench {

class OutputFile {
 public:
  // Opens PATH for writing as described above; `option` names the flag in messages (--out,
  // --trajectory).
  OutputFile(const std::filesystem::path& path, std::string option);
  // Without commit(): a temporary file is removed; a device or FIFO keeps what was written.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return stream_; }
  // Flushes and closes; puts a temporary in place. OutputError when any write failed.
  void commit();

 private:
  void fail(const std::string& why);

  std::filesystem::path path_;     // as given, for messages
  std::filesystem::path target_;   // the file replaced (a link's target) or written through
  std::filesystem::path partial_;  // empty when written through
  std::string option_;
  std::ofstream stream_;
  bool through_ = false;  // a device or FIFO, written directly
  bool done_ = false;
};

// `content` as the whole of PATH (OutputFile).
void write_output(const std::filesystem::path& path, std::string_view content,
                  const std::string& option);

// Removes the temporary files (NAME.partial-<pid>-XXXXXX, and NAME.partial-XXXXXX of earlier
// versions) that writers no longer running left in FOLDER (and its direct subfolders when
// `recursive`): an interrupted write leaves one behind, and the next run on the same folder
// clears it. Temporaries of running processes, and every other name, are left alone.
void remove_stale_partials(const std::filesystem::path& folder, bool recursive);

// The mode a new file gets: 0666 less the process's umask.
unsigned new_file_mode();

}  // namespace crbench
