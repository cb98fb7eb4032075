#include "cli/Cli.h"

int main(int argc, char** argv) { return predatar::cli::main(argc, argv); }
