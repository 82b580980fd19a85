#include "nmt/cgroup.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>

namespace nmt {
namespace {

bool names_controller(std::string_view controllers, std::string_view controller) {
  std::size_t start = 0;
  while (start <= controllers.size()) {
    const std::size_t comma = std::min(controllers.find(',', start), controllers.size());
    if (controllers.substr(start, comma - start) == controller) return true;
    start = comma + 1;
  }
  return false;
}

void visit_on_the_way_up(const std::filesystem::path& hierarchy,
                         std::filesystem::path path,
                         const std::function<void(const std::filesystem::path&)>& visit) {
  while (true) {
    visit(hierarchy / path.relative_path());
    if (!path.has_relative_path()) return;
    path = path.parent_path();
  }
}

}  // namespace

void for_each_cgroup_up(std::string_view proc_self_cgroup,
                        const std::filesystem::path& cgroup_mount,
                        std::string_view controller,
                        const std::function<void(const std::filesystem::path& group)>& visit) {
  std::istringstream lines{std::string(proc_self_cgroup)};
  std::string line;
  while (std::getline(lines, line)) {
    // hierarchy-id:controllers:path
    const std::size_t first = line.find(':');
    if (first == std::string::npos) continue;
    const std::size_t second = line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string_view controllers(line.data() + first + 1, second - first - 1);
    const std::filesystem::path path = line.substr(second + 1);
    if (path.empty() || !path.is_absolute()) continue;
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      visit_on_the_way_up(cgroup_mount, path, visit);
    } else if (names_controller(controllers, controller)) {
      visit_on_the_way_up(cgroup_mount / controllers, path, visit);
    }
  }
}

std::optional<int64_t> cgroup_number(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> read_cgroup_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace nmt
