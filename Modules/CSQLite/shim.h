// SQLite as the system installs it (libsqlite3-dev): the history's database.
#include <sqlite3.h>
