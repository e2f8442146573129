# images/: how the work, egress and test images are made (scripts run by `image build`).
imagesdir = $(pkgdatadir)/images
dist_images_DATA = images/test-rootfs.sh images/work-rootfs.sh images/egress-rootfs.sh
