// Our stand-in for GLEW's header: hybridsort's bucketsort.cu includes it but calls nothing of
// OpenGL, and this machine has no GLEW. Only build_barracuda.sh puts this folder on the path.
#pragma once
